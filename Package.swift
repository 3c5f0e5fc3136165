// swift-tools-version:6.0
import PackageDescription

// Layers of DESIGN.md, each its own target so the compiler enforces who may import whom:
// Store → (Crypto → Remote → Sync, Export) → CLI. Only one file per layer imports its C module.
let package = Package(
    name: "Quire",
    products: [
        .executable(name: "quire", targets: ["QuireCLI"]),
        .library(name: "QuireKit", targets: ["QuireStore"]),
        .executable(name: "quire-bench", targets: ["QuireBench"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // Embeds top-level `migrations/` and `templates/` into the binary at build time,
        // so `quire` works when copied anywhere.
        .executableTarget(name: "EmbedTool"),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedTool"]),

        .target(name: "QuireStore", dependencies: ["CSQLite"], plugins: ["EmbedFiles"]),
        .executableTarget(name: "QuireCLI", dependencies: ["QuireStore"]),
        .executableTarget(name: "QuireBench", dependencies: ["QuireStore"], path: "bench/QuireBench"),

        .testTarget(name: "QuireStoreTests", dependencies: ["QuireStore", "QuireCLI"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
