// swift-tools-version:6.0
import PackageDescription

// Layers of DESIGN.md, each its own target so the compiler enforces who may import whom:
// Support → Store → (Crypto → Remote → Sync, Import, Export, Transcribe) → Kit → CLI.
// A C library is reached through its own system-library target, by as few files as can.
let package = Package(
    name: "Quire",
    products: [
        .executable(name: "quire", targets: ["QuireCLI"]),
        .library(name: "QuireKit", targets: ["QuireKit"]),
        .executable(name: "quire-bench", targets: ["QuireBench"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CCmark", pkgConfig: "libcmark-gfm", providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CPango", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(name: "CHyphen", providers: [.apt(["libhyphen-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CQPDF", pkgConfig: "libqpdf", providers: [.apt(["libqpdf-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),

        // Embeds top-level `migrations/` and `templates/` into the binary at build time,
        // so `quire` works when copied anywhere.
        .executableTarget(name: "EmbedTool"),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedTool"]),

        // Below Store and Remote: durable file writes, JSON, SHA-256.
        .target(name: "QuireSupport", dependencies: ["CCrypto", "CLinux"]),
        .target(name: "QuireStore", dependencies: ["CSQLite", "CLinux", "QuireSupport"], plugins: ["EmbedFiles"]),
        .target(name: "QuireCrypto", dependencies: ["CSodium", "CCrypto"]),
        .target(name: "QuireRemote", dependencies: ["CCurl", "CXML2", "CLinux", "QuireSupport"]),
        .target(name: "QuireSync", dependencies: ["CLinux", "CZstd", "QuireSupport", "QuireStore", "QuireCrypto", "QuireRemote"]),
        .target(name: "QuireImport", dependencies: ["QuireSupport", "QuireStore", "CZip"]),
        .target(name: "QuireExport", dependencies: ["CLinux", "QuireSupport", "QuireStore", "CCmark", "CXML2", "CZip", "CPango", "CHyphen", "CZlib", "CQPDF", "CJPEG"], plugins: ["EmbedFiles"]),
        // The library's face: `Journal`, and every layer's public API re-exported.
        .target(name: "QuireTranscribe", dependencies: ["QuireStore", "QuireSupport"], plugins: ["EmbedFiles"]),
        .target(name: "QuireKit", dependencies: ["QuireStore", "QuireCrypto", "QuireRemote", "QuireSync", "QuireImport", "QuireExport", "QuireTranscribe"]),
        .executableTarget(name: "QuireCLI", dependencies: ["CLinux", "QuireSupport", "QuireKit"]),
        // What an embedding app does, through QuireKit's public API only; ./scripts/test runs it.
        .executableTarget(name: "EmbedQuire", dependencies: ["QuireKit"], path: "Examples/EmbedQuire"),
        .executableTarget(name: "QuireBench", dependencies: ["QuireStore", "QuireCrypto", "QuireRemote", "QuireSync", "QuireImport", "QuireExport"], path: "bench/QuireBench"),

        .testTarget(name: "QuireTests", dependencies: ["CZstd", "QuireSupport", "QuireStore", "QuireCrypto", "QuireRemote", "QuireSync", "QuireImport", "QuireExport", "QuireTranscribe", "QuireKit", "QuireCLI", "CZip", "CLinux", "CSodium"],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
