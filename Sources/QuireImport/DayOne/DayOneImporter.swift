import Foundation
import QuireStore

/// Brings in a Day One JSON export (`quire import dayone EXPORT.zip|FOLDER`): every journal
/// file in it, with photos, voice notes, videos and PDFs streamed from the zip into the store.
///
/// What is kept: text (Markdown, Day One's backslash escapes removed, a first `# Title` line
/// as the title), the creation time at the UTC offset its `timeZone` had then (a note written
/// at 23:30 in Tokyo stays on its Tokyo day), the modification time, tags, starred, location
/// (place, locality and country as its name), weather as a last line of the text
/// (`Weather: Mostly Sunny, 26 °C`), and each `dayone-moment` reference as a Quire reference
/// to the attachment in place. Audio comes in as voice notes, with Day One's transcription.
/// Ids derive from Day One's `uuid`s, so importing a newer export updates entries instead of
/// adding them again. Media the export lacks are named in the summary's `missing`.
package struct DayOneImporter {
    let path: String

    package init(path: String) { self.path = path }

    /// Imports everything in one transaction: a damaged zip, an entry that is not Day One's,
    /// or a date that does not parse leaves the store as it was.
    /// - Throws: `ImportError` naming the file and entry; `StoreError` for the store.
    package func run(into store: Store, journal: String? = nil, progress: ProgressHandler? = nil) throws -> ImportSummary {
        let source = try DayOneSource(path: path)
        var missing: [String] = []
        var summary = try store.importEntries(journal: journal) { emit in
            var done: Int64 = 0
            for file in source.journals {
                let document = try source.journal(file)
                guard let root = document.object, let list = root["entries"]?.array else {
                    throw ImportError(path: path, place: file, detail: "is not a Day One journal (no \"entries\" list)")
                }
                let name = String(file.dropLast(".json".count))
                let total = Int64(list.count)
                for (index, value) in list.enumerated() {
                    let place = "\(file): entry \(index + 1)"
                    guard let object = value.object else {
                        throw ImportError(path: path, place: place, detail: "is not an object")
                    }
                    let fields = JSONFields(object: object, error: { ImportError(path: path, place: place, detail: $0) })
                    let entry = try DayOneEntry(fields, journal: name, source: source)
                    missing += entry.missing.map { "\(file): entry \(entry.uuid): \($0)" }
                    do {
                        try emit(entry.imported)
                    } catch let error as StoreError {
                        throw ImportError(path: path, place: place + " (\(entry.uuid))", detail: error.description)
                    }
                    done += 1
                    if done % 200 == 0 { progress?(done, total) }
                }
                progress?(total, total)
            }
        }
        summary.missing = missing
        return summary
    }
}
