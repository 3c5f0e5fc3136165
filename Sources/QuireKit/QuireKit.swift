// QuireKit: what an app imports to keep, sync, restore and export a journal.
//
// `import QuireKit` brings every layer's public API; `Journal` is the entry point. The
// layers stay separate modules (DESIGN.md) so the compiler keeps who may use whom; an app
// needs none of their names to begin.
@_exported import QuireCrypto
@_exported import QuireExport
@_exported import QuireImport
@_exported import QuireRemote
@_exported import QuireStore
@_exported import QuireSync
