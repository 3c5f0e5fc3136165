import Foundation
import PackagePlugin

/// Turns a top-level folder of the package (the source of truth: `migrations/`, `templates/`)
/// into a generated Swift file inside the target that uses this plugin, so the built binary
/// carries those files and needs no path lookup at run time.
@main
struct EmbedFiles: BuildToolPlugin {
    /// Which top-level folders each target embeds, and the name of each generated enum.
    static let folders: [String: [(folder: String, type: String)]] = [
        "QuireStore": [("migrations", "EmbeddedMigrations")],
        "QuireExport": [("templates", "EmbeddedTemplates"), ("messages", "EmbeddedMessages")],
        "QuireTranscribe": [("engines", "EmbeddedEngines")],
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "EmbedTool")
        return (Self.folders[target.name] ?? []).map { spec in
            let root = context.package.directoryURL.appending(path: spec.folder)
            let files = Self.regularFiles(under: root)
            let output = context.pluginWorkDirectoryURL.appending(path: "\(spec.type).swift")
            return .buildCommand(
                displayName: "Embedding \(spec.folder)/ into \(target.name)",
                executable: tool.url,
                arguments: [spec.type, output.path, root.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        }
    }

    static func regularFiles(under root: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]
        ) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }
}
