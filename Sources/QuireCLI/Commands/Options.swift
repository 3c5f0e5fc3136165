import Foundation
import QuireKit

/// Option handling shared by several commands.
enum Options {
    /// The remote `url` with `--user`, `--password-file` (made absolute) and `--insecure-http`;
    /// for S3, with `--endpoint`, `--region`, `--path-style` and `--credentials-file`, where
    /// neither they nor the URL say the region or endpoint, what the AWS tools' shared
    /// settings in `environment` say (`S3Defaults`).
    /// - Throws: a usage error saying what is wrong with the URL, or which setting is wrong.
    static func remoteAddress(_ url: String, _ arguments: Arguments, environment: [String: String]) throws -> RemoteAddress {
        func absolute(_ path: String?) -> String? { path.map { URL(fileURLWithPath: $0).standardizedFileURL.path } }
        let s3Given = ["endpoint", "region", "credentials-file", "profile"].filter { arguments.value($0) != nil } + (arguments.flag("path-style") ? ["path-style"] : [])
        guard url.hasPrefix("s3://") else {
            if let option = s3Given.first { throw CLIError.usage("--\(option) goes with an s3:// remote") }
            let address = RemoteAddress(url: url, user: arguments.value("user"), passwordFile: absolute(arguments.value("password-file")),
                                        insecureHTTP: arguments.flag("insecure-http"), caFile: absolute(arguments.value("ca-file")))
            try check(address)
            return address
        }
        for webdav in ["user", "password-file"] where arguments.value(webdav) != nil {
            throw CLIError.usage("--\(webdav) is for WebDAV; an S3 remote's credentials come from AWS_ACCESS_KEY_ID, ~/.aws/credentials or --credentials-file")
        }
        let s3: S3Address
        let given: S3Address
        do {
            given = try S3Address(url: url)
        } catch let error as RemoteError {
            throw CLIError.usage(error.detail)
        }
        // --profile, else the URL's: its settings in ~/.aws/config, and its keys on every run.
        let profile = arguments.value("profile") ?? given.profile
        let defaults = S3Defaults(environment: profile.map { environment.merging(["AWS_PROFILE": $0]) { $1 } } ?? environment)
        // What the command line or the URL says, else the shared settings (with where they said it).
        typealias Said = (value: String, source: String?)
        let region: Said? = arguments.value("region").map { ($0, nil) }
            ?? (url.contains("region=") ? (given.region, nil) : defaults.region.map { ($0.value, $0.source) })
        let endpoint: Said? = arguments.value("endpoint").map { ($0, nil) }
            ?? (url.contains("endpoint=") ? (given.endpoint, nil) : defaults.endpoint.map { ($0.value, $0.source) })
        do {
            s3 = try S3Address(bucket: given.bucket, prefix: given.prefix, endpoint: endpoint?.value, region: region?.value,
                               pathStyle: arguments.flag("path-style") ? true : given.pathStyle ?? defaults.pathStyle, profile: profile)
        } catch let error as RemoteError {
            // A variable or a profile may hold what no one typed here: say so.
            let read = Set([region?.source, endpoint?.source].compactMap { $0 }).sorted()
            throw CLIError.usage(error.detail + (read.isEmpty ? "" : " (read from \(read.joined(separator: " and ")))"))
        }
        // --ca-file, else (over TLS) the CA bundle the AWS tools trust, kept as the remote's;
        // one no one typed names where it was read when it will not do.
        let caBundle = arguments.value("ca-file") == nil && s3.overTLS ? defaults.caBundle.map { (path: absolute($0.value) ?? $0.value, source: $0.source) } : nil
        if let caBundle {
            do {
                try Remotes.validate(caFile: caBundle.path)
            } catch let error as RemoteError {
                throw CLIError.usage(error.detail + " (read from \(caBundle.source))")
            }
        }
        let address = RemoteAddress(url: s3.text, passwordFile: absolute(arguments.value("credentials-file")), insecureHTTP: arguments.flag("insecure-http"),
                                    caFile: absolute(arguments.value("ca-file")) ?? caBundle?.path)
        try check(address)
        return address
    }

    private static func check(_ address: RemoteAddress) throws {
        do {
            try Remotes.validate(address.url, insecureHTTP: address.insecureHTTP, caFile: address.caFile)
        } catch let error as RemoteError {
            throw CLIError.usage(error.detail)
        }
    }

    static func date(_ arguments: Arguments, _ name: String, endOfDay: Bool = false) throws -> Timestamp? {
        guard let text = arguments.value(name) else { return nil }
        guard let date = Timestamp.parseLenient(text, endOfDay: endOfDay) else {
            throw CLIError.usage("--\(name) '\(text)' is not a date: use YYYY-MM-DD HH:MM (2025-03-01 21:14), YYYY-MM-DD, RFC 3339, "
                                 + "or words such as yesterday 21:30, today at 9pm, last monday, Dec 2, a week ago")
        }
        return date
    }

    /// `--body TEXT`, `--body-file F`, or (when `stdinFallback`) standard input.
    static func body(_ arguments: Arguments, context: Context, stdinFallback: Bool) throws -> String? {
        try arguments.exclusive("body", "body-file")
        if let body = arguments.value("body") { return body }
        if let path = arguments.value("body-file") {
            return path == "-" ? try context.readStandardInput(what: "entry") : try context.readText(path, what: "body file")
        }
        return stdinFallback ? try context.readStandardInput(what: "entry") : nil
    }

    /// `--text`, `--transcript-file`/`--file`, `--srt` or `--vtt`, as (text, segments); nil if none given.
    static func transcript(_ arguments: Arguments, context: Context, textOption: String, fileOption: String) throws -> (String, [Segment])? {
        try arguments.exclusive(textOption, fileOption, "srt", "vtt")
        if let text = arguments.value(textOption) { return (text, []) }
        if let path = arguments.value(fileOption) { return (try context.readText(path, what: "transcript file"), []) }
        for format in [Subtitles.Format.srt, .vtt] {
            if let path = arguments.value(format.rawValue) {
                let segments = try Subtitles.parse(try context.readText(path, what: "subtitle file"), format: format, path: path)
                return (Segment.transcript(of: segments), segments)
            }
        }
        return nil
    }

    static func filter(_ arguments: Arguments) throws -> EntryFilter {
        // A tag no entry could carry (empty, `#` alone, a control character) is a mistake to
        // name, not a filter that quietly matches nothing.
        EntryFilter(journals: arguments.all("journal"), tags: try arguments.all("tag").map { try Store.typedTag($0) },
                    from: try date(arguments, "from"), to: try date(arguments, "to", endOfDay: true))
    }

    static let filterSpec: Set<String> = ["journal", "tag", "from", "to"]

    static func entryID(_ text: String, in store: Store) throws -> String {
        guard case .entry(let id) = try store.resolve(text, allowing: [.entry]) else {
            throw CLIError.failure("no entry with id \(text)", hint: nil)
        }
        return id
    }

    static func mediaID(_ text: String, in store: Store) throws -> String {
        guard case .media(let id) = try store.resolve(text, allowing: [.media]) else {
            throw CLIError.failure("no attachment with id \(text)", hint: nil)
        }
        return id
    }
}

/// Text shown to people (scripts use --json).
enum Format {
    static func short(_ id: String) -> String { String(id.prefix(8)) }

    /// `1 entry`, `3 entries`: a count with its noun.
    static func count(_ n: Int, _ one: String, _ many: String? = nil) -> String {
        "\(n) " + (n == 1 ? one : many ?? one + "s")
    }

    static func entryLine(_ entry: Entry) -> String {
        var line = short(entry.id) + "  " + listed(entry.created) + "  " + (entry.starred ? "★ " : "") + entry.displayTitle
        if !entry.tags.isEmpty { line += "  " + entry.tags.map { "#" + $0 }.joined(separator: " ") }
        if !entry.media.isEmpty { line += "  [\(entry.media.count) attachment\(entry.media.count == 1 ? "" : "s")]" }
        return line
    }

    /// When something happened on this machine, for `status`: `2026-12-07 14:22 (8 minutes
    /// ago)` at this machine's offset; the stored text itself when it is not a time.
    static func happened(_ text: String, now: Date = Date()) -> String {
        guard let time = Timestamp(rfc3339: text) else { return text }
        let date = Date(timeIntervalSince1970: Double(time.microseconds) / 1_000_000)
        let local = Timestamp(microseconds: time.microseconds, offsetSeconds: TimeZone.current.secondsFromGMT(for: date))
        return local.localMinute + " (" + age(now.timeIntervalSince(date)) + ")"
    }

    /// `just now`, `8 minutes ago`, `3 hours ago`, `2 days ago`; a time ahead of this
    /// machine's clock says so (another machine's clock, or this one set back).
    static func age(_ seconds: Double) -> String {
        guard seconds > -60 else { return "ahead of this machine's clock" }
        let minutes = Int(max(0, seconds) / 60)
        if minutes < 1 { return "just now" }
        if minutes < 60 { return count(minutes, "minute") + " ago" }
        if minutes < 48 * 60 { return count(minutes / 60, "hour") + " ago" }
        return count(minutes / (24 * 60), "day") + " ago"
    }

    /// A list's date column: `2026-12-03 21:30`, or the day alone (padded to the same
    /// width) for a date-only entry, which has no time to show.
    static func listed(_ time: Timestamp) -> String {
        time.isDateOnly ? String(time.localMinute.prefix(10)) + "      " : time.localMinute
    }

    /// `Thursday 3 December 2026, 21:30 (UTC+01:00)`: the writer's own clock and zone, in
    /// words; a date-only entry's day alone. `--json` keeps RFC 3339.
    static func forPeople(_ time: Timestamp) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: time.offsetSeconds) ?? .gmt
        let date = Date(timeIntervalSince1970: Double(time.microseconds) / 1_000_000)
        let parts = calendar.dateComponents([.weekday, .day, .month, .year], from: date)
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                      "November", "December"]
        guard let weekday = parts.weekday, let day = parts.day, let month = parts.month, let year = parts.year,
              weekdays.indices.contains(weekday - 1), months.indices.contains(month - 1) else { return time.text }
        let dayText = "\(weekdays[weekday - 1]) \(day) \(months[month - 1]) \(year)"
        if time.isDateOnly { return dayText }
        let minutes = abs(time.offsetSeconds) / 60
        let zone = String(format: "UTC%@%02d:%02d", time.offsetSeconds < 0 ? "-" : "+", minutes / 60, minutes % 60)
        return dayText + ", " + String(time.localMinute.suffix(5)) + " (\(zone))"
    }

    static func size(_ bytes: Int64) -> String { ByteCount.text(bytes) }

    static func seconds(_ s: Double) -> String {
        let total = Media.wholeSeconds(s)
        return String(format: "%d:%02d", total / 60, total % 60)
    }

    static func entryDetail(_ entry: Entry) -> String {
        var lines = [
            "id:        \(entry.id)",
            "journal:   \(entry.journal)",
            "created:   \(forPeople(entry.created))",
            "modified:  \(forPeople(entry.modified))",
        ]
        if !entry.tags.isEmpty { lines.append("tags:      " + entry.tags.joined(separator: ", ")) }
        if entry.starred { lines.append("starred:   yes") }
        if let l = entry.location {
            lines.append("location:  \(l.latitude), \(l.longitude)" + (l.name.map { " (\($0))" } ?? ""))
        }
        if !entry.title.isEmpty { lines += ["", "# " + entry.title] }
        if !entry.body.isEmpty { lines += ["", entry.body] }
        for media in entry.media {
            lines.append("")
            var about = "\(media.kind.name) \(media.id)  \(media.filename)  \(media.mime), \(size(media.size))"
            if let d = media.duration { about += ", \(seconds(d))" }
            lines.append(about)
            if !media.segments.isEmpty {
                for s in media.segments { lines.append("  [\(seconds(s.start))] \(s.text)") }
            } else if !media.transcript.isEmpty {
                lines.append("  " + media.transcript)
            }
        }
        return lines.joined(separator: "\n")
    }
}
