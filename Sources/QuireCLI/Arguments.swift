/// A small command-line parser: `--name value`, `--name=value`, repeatable options, flags,
/// and positionals; `--` ends options. Unknown options are usage errors.
struct Arguments {
    struct Spec {
        /// Options that take a value.
        var options: Set<String> = []
        /// Options that may be given more than once.
        var repeatable: Set<String> = []
        /// Options without a value.
        var flags: Set<String> = []
    }

    private(set) var values: [String: [String]] = [:]
    private(set) var setFlags: Set<String> = []
    private(set) var positionals: [String] = []

    init(_ args: [String], spec: Spec) throws(CLIError) {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
                if !onlyPositionals && arg.hasPrefix("-") && arg.count > 1 && arg != "-" && arg != "-h" {
                    throw .usage("unknown option '\(arg)'")
                }
                if arg == "-h" { setFlags.insert("help"); continue }
                positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            var name = String(arg.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if spec.flags.contains(name) {
                guard inline == nil else { throw .usage("option --\(name) takes no value") }
                setFlags.insert(name)
            } else if spec.options.contains(name) {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < args.count else { throw .usage("option --\(name) needs a value") }
                    value = args[i]
                    i += 1
                }
                if values[name] != nil && !spec.repeatable.contains(name) {
                    throw .usage("option --\(name) is given more than once")
                }
                values[name, default: []].append(value)
            } else {
                throw .usage("unknown option '--\(name)'")
            }
        }
    }

    /// Drops an option the dispatcher handled itself (`--store`), so a command never sees it.
    mutating func forget(_ name: String) { values[name] = nil }

    /// Every option and flag given, by name.
    var given: Set<String> { Set(values.keys).union(setFlags) }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func flag(_ name: String) -> Bool { setFlags.contains(name) }
    func has(_ name: String) -> Bool { values[name] != nil }

    /// Exactly `count` positionals, or a usage error naming what is expected.
    func positionals(_ names: String...) throws(CLIError) -> [String] {
        guard positionals.count == names.count else {
            if positionals.count < names.count {
                throw .usage("missing \(names[positionals.count])")
            }
            throw .usage("unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }

    /// At most one of `names` may be given.
    func exclusive(_ names: String...) throws(CLIError) {
        let given = names.filter { has($0) || flag($0) }
        if given.count > 1 { throw .usage("use only one of " + given.map { "--" + $0 }.joined(separator: ", ")) }
    }
}
