// The support layer below Store and Remote (durable writes, JSON, SHA-256) comes with the
// store: every layer above uses it through `import QuireStore`.
@_exported import QuireSupport
