// QuireKit: what an app imports to keep, sync, restore and export a journal.
//
// `import QuireKit` brings every layer's public API; `Journal` is the entry point. The
// layers stay separate modules (DESIGN.md) so the compiler keeps who may use whom; an app
// needs none of their names to begin. Public is what an app needs: `Journal`, the store's
// records and their reading and writing, the importers, the options, reports and errors.
// The machinery (sync's side of the store, backends, ciphers, the typesetter's parts, tuning
// knobs and test hooks) is `package`: the CLI, the benchmarks and the tests, all in this
// package, use it; an app never sees it (`./scripts/public-api` counts what it does see,
// and `./scripts/test` typechecks `Examples/EmbedQuire` as an outside app).
@_exported import QuireCrypto
@_exported import QuireExport
@_exported import QuireImport
@_exported import QuireRemote
@_exported import QuireStore
@_exported import QuireSync
@_exported import QuireTranscribe
