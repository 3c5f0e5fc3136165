import Foundation
import QuireStore

/// The templates one export uses: the defaults of top-level `templates/` carried in the
/// binary, each replaced by the file of the same relative path under `--templates DIR` when
/// there is one. Files of one folder are each other's partials by base name
/// (`{{> entry}}` in `epub/chapter.xhtml` is `epub/entry.xhtml`).
public final class TemplateSet {
    /// Relative path (`epub/chapter.xhtml`) → source.
    private let sources: [String: String]
    /// Relative path → where it came from, for error messages.
    private let origins: [String: String]
    private var parsed: [String: MustacheTemplate] = [:]
    private var partials: [String: MustachePartials] = [:]

    /// - Parameter overrides: a folder laid out like `templates/`, or nil for the defaults.
    /// - Throws: `ExportError.template` for an unreadable folder or a file that is not UTF-8.
    public init(overrides: String? = nil) throws {
        var sources: [String: String] = [:]
        var origins: [String: String] = [:]
        for (path, base64) in EmbeddedTemplates.base64 {
            guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { continue }
            sources[path] = text
            origins[path] = "templates/" + path
        }
        if let overrides {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: overrides, isDirectory: &isFolder), isFolder.boolValue else {
                throw ExportError(.template, path: overrides, detail: "is not a folder of templates")
            }
            for path in sources.keys.sorted() {
                let file = overrides + "/" + path
                // Read beneath DIR, following no link: `style.css -> /proc/self/environ` would
                // copy the environment (a passphrase with it) into a book someone may share.
                let source = SourceFile.beneath(folder: overrides, relative: path)
                guard source.exists else { continue }
                let data: Data
                do {
                    data = try source.read(limit: 4 << 20)
                } catch let error as StoreError {
                    throw ExportError(.template, path: file, detail: "cannot be used: " + error.detail)
                }
                guard let text = String(validating: data, as: UTF8.self) else {
                    throw ExportError(.template, path: file, detail: "is not UTF-8 text")
                }
                sources[path] = text
                origins[path] = file
            }
        }
        self.sources = sources
        self.origins = origins
    }

    /// Writes the built-in templates into `folder` (`epub/…`, `markdown/…`), to be copied
    /// and changed, then given back with `--templates`. Files already there are left alone.
    /// - Returns: the relative paths written.
    /// - Throws: `ExportError.io` naming what could not be written.
    package static func writeDefaults(to folder: String) throws -> [String] {
        var written: [String] = []
        for (path, base64) in EmbeddedTemplates.base64.sorted(by: { $0.key < $1.key }) {
            guard let data = Data(base64Encoded: base64) else { continue }
            let target = folder + "/" + path
            guard !FileManager.default.fileExists(atPath: target) else { continue }
            do {
                try FileIO.makeFolder(PathText.parent(target))
                try FileIO.writeDurably(to: target, mode: 0o644, sync: false) { fd in
                    try data.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: target) }
                }
            } catch let error as StoreError {
                throw ExportError(.io, path: error.path ?? target, detail: error.detail)
            }
            written.append(path)
        }
        return written
    }

    /// Where template `path` came from (a file under `--templates`, or `templates/…`).
    package func origin(of path: String) -> String { origins[path] ?? "templates/" + path }

    /// The raw text of `path` (for files copied as they are, such as the stylesheet).
    package func source(_ path: String) throws -> String {
        guard let text = sources[path] else { throw ExportError(.template, path: "templates/" + path, detail: "is missing from this build") }
        return text
    }

    /// Renders template `path` with `data`.
    /// - Throws: `ExportError.template` naming the file and line of a syntax error.
    package func render(_ path: String, _ data: MustacheValue) throws -> String {
        do {
            let template = try parsedTemplate(path)
            return try template.render(data, partials: partialSet(for: path))
        } catch let error as MustacheTemplate.SyntaxError {
            throw ExportError(.template, path: origin(of: error.template) + ":\(error.line)", detail: error.reason)
        }
    }

    private func parsedTemplate(_ path: String) throws -> MustacheTemplate {
        if let template = parsed[path] { return template }
        let template = try MustacheTemplate(try source(path), name: path)
        parsed[path] = template
        return template
    }

    private func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// The other files of `path`'s folder by base name, parsed once.
    private func partialSet(for path: String) -> MustachePartials {
        let prefix = folder(of: path)
        if let set = partials[prefix] { return set }
        var named: [String: String] = [:]
        var paths: [String: String] = [:]
        for (other, text) in sources where other.hasPrefix(prefix) {
            let file = String(other.dropFirst(prefix.count))
            guard !file.contains("/") else { continue }
            let base = file.split(separator: ".", maxSplits: 1).first.map(String.init) ?? file
            named[base] = text
            paths[base] = other
        }
        let set = MustachePartials(named, errorNames: paths)
        partials[prefix] = set
        return set
    }
}
