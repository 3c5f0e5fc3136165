import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// `quire export markdown` on the varied journal, read back by pandoc and walked on disk.
@Suite struct MarkdownExportTests {
    let dir = TempDir()
    let store: String

    init() throws { store = try VariedJournal.make(in: dir, generated: 30) }

    func export(_ name: String = "md", _ arguments: [String] = []) throws -> (QuireRun, String) {
        let out = dir.path + "/" + name
        return (try QuireBinary.run(["export", "markdown", out] + arguments, store: store), out)
    }

    func files(under root: String) -> [String] {
        let walker = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder), !isFolder.boolValue { found.append(path) }
        }
        return found.sorted()
    }

    @Test(.enabled(if: ExternalTool.available("pandoc")))
    func pandocReadsEveryFileAndItsFrontMatter() throws {
        let (run, out) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        let entries = try Store(folder: store).entries()
        var seen = Set<String>()
        for file in files(under: out) where file.hasSuffix(".md") && file != "index.md" {
            let result = try ExternalTool.run("pandoc", ["-f", "markdown", "-t", "json", out + "/" + file])
            try #require(result.status == 0, "pandoc failed on \(file): \(result.stderr)")
            let meta = try JSONValue.parse(result.stdout).object?["meta"]?.object ?? [:]
            let id = Self.plain(meta["id"])
            let entry = try #require(entries.first { $0.id == id }, "\(file): front matter id \(id)")
            seen.insert(id)
            #expect(Self.plain(meta["created"]) == entry.created.text, "\(file)")
            // pandoc reads YAML strings as Markdown (`*x*` is emphasis to it); the YAML itself is exact.
            if !entry.title.contains("*") {
                #expect(Self.plain(meta["title"]) == entry.title, "\(file): title read back as \(Self.plain(meta["title"]))")
            } else {
                #expect(Self.plain(meta["title"]).hasPrefix("Title: with \"quotes\" # and"))
            }
            let tags = meta["tags"]?.object?["c"]?.array?.map { Self.plain($0) } ?? []
            #expect(tags == entry.tags, "\(file)")
        }
        #expect(seen.count == entries.count)
        let index = try ExternalTool.run("pandoc", ["-f", "markdown", "-t", "plain", out + "/index.md"])
        #expect(index.status == 0 && index.stdout.contains("Вечер в Москве"))
    }

    /// The text of a pandoc metadata value (MetaInlines or MetaString).
    static func plain(_ value: JSONValue?) -> String {
        guard let object = value?.object else { return "" }
        if object["t"]?.string == "MetaString" { return object["c"]?.string ?? "" }
        var text = ""
        for inline in object["c"]?.array ?? [] {
            switch inline.object?["t"]?.string {
            case "Str": text += inline.object?["c"]?.string ?? ""
            case "Space": text += " "
            case "Quoted": text += "\"" + (inline.object?["c"]?.array?.last?.array ?? []).map { plain(.object(["t": .string("MetaInlines"), "c": .array([$0])])) }.joined() + "\""
            default: break
            }
        }
        return text
    }

    @Test func filesLinksAndNamesAreSafeAndResolve() throws {
        let (run, out) = try export()
        try #require(run.status == 0, "\(run.stderr)")
        let all = files(under: out)
        #expect(all.contains("index.md") && all.contains(".quire-export"))
        #expect(all.contains("2025/07/2025-07-06-same-title.md") && all.contains("2025/07/2025-07-06-same-title-2.md")
                && all.contains("2025/07/2025-07-06-same-title-3.md"))
        #expect(all.contains("2025/03/2025-03-01-вечер-в-москве.md"))
        #expect(all.contains("2025/06/2025-06-21-entry.md"), "an entry without any title gets a plain slug")
        // Hostile and reserved names stay inside OUTDIR/attachments, made safe.
        #expect(all.contains("attachments/passwd.txt"))
        #expect(all.contains("attachments/_CON.png"))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/etc"))
        for file in all {
            #expect(!file.split(separator: "/").contains(".."))
            #expect(file.utf8.count < 200)
        }
        // The same photo under two names (IMG_0001.jpg, again.jpg) keeps each name: a file per
        // name, never one entry's attachment shown under another's name.
        #expect(all.filter { $0.hasPrefix("attachments/") && $0.hasSuffix(".jpg") }.sorted() == ["attachments/IMG_0001.jpg", "attachments/again.jpg"])
        // Every relative link resolves to a file.
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var checked = 0
        for file in all where file.hasSuffix(".md") {
            let text = try String(contentsOfFile: out + "/" + file, encoding: .utf8)
            for match in link.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let target = String(text[range])
                // Links Quire writes: attachments and the index. (Links inside bodies are the writer's own.)
                guard target.hasPrefix("../../attachments/") || file == "index.md" else { continue }
                let decoded = try #require(target.removingPercentEncoding)
                let base = URL(fileURLWithPath: out + "/" + file).deletingLastPathComponent()
                let resolved = base.appendingPathComponent(decoded).standardizedFileURL.path
                #expect(resolved.hasPrefix(out + "/"), "\(file): \(target) leaves OUTDIR")
                #expect(FileManager.default.fileExists(atPath: resolved), "\(file): \(target) does not resolve")
                checked += 1
            }
        }
        #expect(checked > 40)
        let voice = try String(contentsOfFile: out + "/2025/07/2025-07-03-voice-notes.md", encoding: .utf8)
        #expect(voice.contains("(../../attachments/Memo%202.mp3)"), "spaces are percent-encoded")
        #expect(voice.contains("(../../attachments/Voice%20014.m4a)"), "a recording another entry shares keeps its own name here")
        #expect(voice.contains("> **0:01** 二番目の文。"))
        #expect(voice.contains("And the last \\<one\\> \\& done."))
    }

    @Test func sameEntriesGiveTheSameFilesAndAReexportCleansUp() throws {
        let (a, first) = try export("a")
        let (b, second) = try export("b")
        try #require(a.status == 0 && b.status == 0)
        let names = files(under: first)
        #expect(names == files(under: second))
        for name in names {
            #expect(FileManager.default.contents(atPath: first + "/" + name) == FileManager.default.contents(atPath: second + "/" + name), "\(name)")
        }
        // Rename an entry and re-export into the same folder: the old file goes, a note of the user's stays.
        let opened = try Store(folder: store)
        let entry = try #require(opened.entries().first { $0.title == "東京の朝" })
        _ = try opened.edit(entryID: entry.id, EntryEdit(title: "京都の夜"))
        _ = dir.file("a/.obsidian/workspace.json", "{}")
        let (again, _) = try export("a")
        try #require(again.status == 0, "\(again.stderr)")
        let after = files(under: first)
        #expect(after.contains("2025/04/2025-04-12-京都の夜.md") && !after.contains("2025/04/2025-04-12-東京の朝.md"))
        #expect(after.contains(".obsidian/workspace.json"))
    }

    @Test func aFolderWithSomeoneElsesFilesIsRefused() throws {
        _ = dir.file("notes/todo.md", "my own notes")
        let (run, _) = try export("notes")
        #expect(run.status == 1 && run.stderr.contains("not empty"))
        #expect(files(under: dir.path + "/notes") == ["todo.md"])
    }

    @Test func aLinkedSubfolderIsNeverWrittenThrough() throws {
        let (first, out) = try export("vault")
        try #require(first.status == 0, "\(first.stderr)")
        // Someone with the shared vault turns attachments/ into a link to a folder outside it.
        let outside = dir.path + "/autostart"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: out + "/attachments")
        try FileManager.default.createSymbolicLink(atPath: out + "/attachments", withDestinationPath: outside)
        let (run, _) = try export("vault")
        #expect(run.status == 1 && run.stderr.contains("symbolic link") && run.stderr.split(separator: "\n").count <= 2, "\(run.stderr)")
        #expect(files(under: outside).isEmpty)
    }

    @Test func aDoctoredManifestDeletesNothingItDidNotWrite() throws {
        let (first, out) = try export("vault")
        try #require(first.status == 0, "\(first.stderr)")
        _ = dir.file("home/notes.md", "keep me")
        _ = dir.file("home/.bashrc", "keep me too")
        _ = dir.file("vault/todo.txt", "the user's own")
        try FileManager.default.createDirectory(atPath: out + "/2031", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/2031/01", withDestinationPath: dir.path + "/home")
        let manifest = out + "/.quire-export"
        let listed = (try String(contentsOfFile: manifest, encoding: .utf8))
            + "2031/01/notes.md\ntodo.txt\n../home/.bashrc\n" + dir.path + "/home/.bashrc\nattachments/../../home/notes.md\n"
        try listed.write(toFile: manifest, atomically: true, encoding: .utf8)
        let (again, _) = try export("vault")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(dir.read("home/notes.md") == "keep me" && dir.read("home/.bashrc") == "keep me too")
        #expect(dir.read("vault/todo.txt") == "the user's own")
        #expect(MarkdownExporter.couldHaveWritten("2025/04/2025-04-12-x.md") && MarkdownExporter.couldHaveWritten("attachments/a.jpg"))
        #expect(!MarkdownExporter.couldHaveWritten("2025/04/../x.md") && !MarkdownExporter.couldHaveWritten(".bashrc"))
    }

    @Test func templatesAreNotReadThroughLinks() throws {
        _ = dir.file("secret.txt", "QUIRE_PASSPHRASE=hunter2")
        _ = dir.file("mine/markdown/index.md", "# {{title}}\n")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/mine/markdown/entry.md", withDestinationPath: dir.path + "/secret.txt")
        let (run, out) = try export("linked", ["--templates", dir.path + "/mine"])
        #expect(run.status == 1 && run.stderr.contains("mine/markdown/entry.md") && run.stderr.contains("symbolic link"), "\(run.stderr)")
        #expect(files(under: out).isEmpty)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/linkdir", withDestinationPath: dir.path + "/mine/markdown")
        _ = dir.file("other/markdown/keep", "")
        try FileManager.default.removeItem(atPath: dir.path + "/other/markdown")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/other/markdown", withDestinationPath: dir.path + "/mine/markdown")
        let (viaFolder, _) = try export("linked2", ["--templates", dir.path + "/other"])
        #expect(viaFolder.status == 1 && viaFolder.stderr.contains("symbolic link"), "\(viaFolder.stderr)")
    }

    @Test func exportedFilesAreTheOwnersAlone() throws {
        let (run, out) = try export("private")
        try #require(run.status == 0, "\(run.stderr)")
        func mode(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1 }
        #expect(mode(out) == 0o700 && mode(out + "/index.md") == 0o600 && mode(out + "/attachments") == 0o700)
        for name in files(under: out) { #expect(mode(out + "/" + name) == 0o600, "\(name)") }
        let json = try QuireBinary.run(["export", "json", dir.path + "/dump"], store: store)
        try #require(json.status == 0, "\(json.stderr)")
        #expect(mode(dir.path + "/dump/entries.jsonl") == 0o600)
        let epub = try QuireBinary.run(["export", "epub", dir.path + "/book.epub"], store: store)
        try #require(epub.status == 0, "\(epub.stderr)")
        #expect(mode(dir.path + "/book.epub") == 0o600)
    }

    @Test func filtersAndTemplateErrors() throws {
        let (run, out) = try export("travel", ["--journal", "travel"])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(files(under: out).filter { $0.hasSuffix(".md") && $0 != "index.md" }.count == 2)
        // The journal typed in another case is found, and the book is named as it is written.
        let index = (try? String(contentsOfFile: out + "/index.md", encoding: .utf8)) ?? ""
        #expect(index.hasPrefix("# Travel\n"), "\(index.prefix(80))")
        _ = dir.file("mine/markdown/entry.md", "# {{{heading}}\n")
        let (broken, brokenOut) = try export("broken", ["--templates", dir.path + "/mine"])
        #expect(broken.status == 1 && broken.stderr.contains(dir.path + "/mine/markdown/entry.md:1"), "\(broken.stderr)")
        #expect(files(under: brokenOut).filter { $0.hasSuffix(".md") }.isEmpty)
    }
}

@Suite struct SafeNameTests {
    @Test func slugsKeepLettersOfEveryScriptAndNothingElse() {
        #expect(SafeName.slug("Вечер в Москве!") == "вечер-в-москве")
        #expect(SafeName.slug("  ../../etc/passwd ") == "etc-passwd")
        #expect(SafeName.slug("東京の朝") == "東京の朝")
        #expect(SafeName.slug("") == "entry")
        #expect(SafeName.slug("???") == "entry")
        #expect(SafeName.slug(String(repeating: "z", count: 500)).count == 60)
        #expect(SafeName.slug(String(repeating: "ü", count: 500)).utf8.count <= 100)
        #expect(SafeName.slug("e\u{301}te\u{301}") == "été", "NFC, so APFS and ext4 agree")
    }

    @Test func fileNamesAreSafeEverywhere() {
        #expect(SafeName.fileName("../../etc/passwd", fallbackExtension: "bin") == "passwd.bin")
        #expect(SafeName.fileName("C:\\Users\\me\\photo.JPG", fallbackExtension: "jpg") == "photo.JPG")
        #expect(SafeName.fileName("con.txt", fallbackExtension: "txt") == "_con.txt")
        #expect(SafeName.fileName("a<b>:c|d?.png", fallbackExtension: "png") == "a_b__c_d_.png")
        #expect(SafeName.fileName("...", fallbackExtension: "m4a") == "attachment.m4a")
        #expect(SafeName.fileName("line\nbreak\u{202E}gnp.exe", fallbackExtension: "png") == "line_break_gnp.exe")
        #expect(SafeName.fileName(String(repeating: "я", count: 300) + ".ogg", fallbackExtension: "ogg").utf8.count <= 110)
        var taken = Set<String>()
        #expect(SafeName.unique("a.jpg", in: &taken) == "a.jpg")
        #expect(SafeName.unique("A.JPG", in: &taken) == "A-2.JPG", "names differing only in case collide on macOS and Windows")
    }

    @Test func yamlQuotingSurvivesAnything() {
        #expect(MarkdownText.yamlQuoted("a \"b\" \\ c\nd\u{1}") == #""a \"b\" \\ c\nd\x01""#)
        #expect(MarkdownText.yamlQuoted("a \"b\" \\ c\nd\u{1}") == ##""a \"b\" \\ c\nd\x01""##)
        #expect(MarkdownText.inline("1. not a list") == #"1\. not a list"#)
        #expect(MarkdownText.inline("- nor this") == #"\- nor this"#)
    }
}
