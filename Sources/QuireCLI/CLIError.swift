import QuireStore

/// What the CLI reports: usage errors exit 2, everything else exits 1.
enum CLIError: Error {
    /// The command line itself is wrong.
    case usage(String)
    /// The command could not do its work.
    case failure(String, hint: String?)

    var exitCode: Int32 {
        if case .usage = self { return 2 }
        return 1
    }
}

/// The one place store errors become a message and a hint a person can act on.
enum Messages {
    static func describe(_ error: Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as StoreError:
            return .failure(error.description, hint: hint(for: error))
        default:
            return .failure("\(error)", hint: nil)
        }
    }

    static func hint(for error: StoreError) -> String? {
        switch error.kind {
        case .busy: return "another quire is writing to this store; try again when it has finished"
        case .newerSchema: return "this store was written by a newer Quire: upgrade quire to use it"
        case .notFound: return "`quire list` shows entry ids; `quire show ID` shows attachment ids"
        case .ambiguous: return "give more characters of the id"
        case .unreadable where error.detail == "no journal here yet":
            return "add an entry with `quire add` or import one with `quire import FILE.jsonl`"
        case .unreadable: return "check --store (or QUIRE_STORE) points at a Quire store you may read and write"
        case .malformed: return "nothing was imported; fix that line and run the command again"
        default: return nil
        }
    }
}
