import QuireKit

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
    /// The one line a person reads for `error` (without its hint).
    static func text(of error: Error) -> String {
        switch describe(error) {
        case .failure(let text, _), .usage(let text): return text
        }
    }

    /// The hint for `error`, if one helps.
    static func hint(of error: Error) -> String? {
        if case .failure(_, let hint) = describe(error) { return hint }
        return nil
    }

    static func describe(_ error: Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as StoreError:
            return .failure(error.description, hint: hint(for: error))
        case let error as RemoteError:
            return .failure(error.description, hint: hint(for: error))
        case let error as CryptoError:
            return .failure(error.description, hint: hint(for: error))
        case let error as SyncError:
            return .failure(error.description, hint: hint(for: error))
        case let error as ExportError:
            return .failure(error.description, hint: hint(for: error))
        case let error as TranscribeError:
            return .failure(error.detail, hint: error.kind == .noEngine ? Engines.installHint + "; `quire transcribe --engines` says what is missing" : nil)
        case let error as ImportError:
            return .failure(error.description, hint: "nothing was imported; fix the source or leave that part out, then import again")
        default:
            return .failure("\(error)", hint: nil)
        }
    }

    static func hint(for error: StoreError) -> String? {
        switch error.kind {
        case .busy: return "another quire is writing to this store; try again when it has finished"
        case .newerSchema: return "this store was written by a newer Quire: upgrade quire to use it"
        case .notFound where error.detail.hasPrefix("no journal named"): return "`quire journals` lists them with their entries"
        case .notFound: return "`quire list` shows entry ids; `quire show ID` shows attachment ids"
        case .ambiguous: return "give more characters of the id"
        case .unreadable where error.detail == "no journal here yet":
            return "add an entry with `quire add` or import one with `quire import FILE.jsonl`"
        case .unreadable: return "check --store (or QUIRE_STORE) points at a Quire store you may read and write"
        case .malformed: return "nothing was imported; fix that line and run the command again"
        case .readOnly: return "reading works here (list, show, search, export); to change it, run as the store's owner or copy the store folder"
        default: return nil
        }
    }

    static func hint(for error: RemoteError) -> String? {
        guard !error.advises else { return nil }
        let s3 = error.location?.hasPrefix("s3://") == true
        switch error.kind {
        case .unauthorized where s3: return "check the S3 access key and its secret (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ~/.aws/credentials and AWS_PROFILE, or --credentials-file)"
        case .unauthorized: return "check the credentials: for WebDAV --user and the password (QUIRE_WEBDAV_PASSWORD, --password-file or ~/.netrc); for S3 the access key and secret (AWS_ACCESS_KEY_ID, ~/.aws/credentials or --credentials-file)"
        case .forbidden where s3: return "these credentials may not do that in this bucket; check the key's permissions and the bucket's name"
        case .forbidden: return "this account may not write there; check the URL and the folder's permissions"
        case .insufficientStorage: return "free some space on the server, then run the command again"
        case .transient: return "the server is busy or the connection dropped; run the command again later"
        case .unreachable: return "check the URL, the network and the server's TLS certificate"
        case .refused: return "is the server running, and is the port in the URL right?"
        case .noAnswer: return "something at that address took the connection but said nothing: is the port in the URL a WebDAV server's, and is the server up?"
        case .protocolError where s3: return "the server's answer was not what S3 promises; is --endpoint the URL of an S3 service?"
        case .protocolError: return "the server's answer was not what WebDAV promises; is the URL a WebDAV folder?"
        case .tooLarge: return Self.bodyLimitHint
        default: return nil
        }
    }

    static let bodyLimitHint = "raise the server's limit (nginx: client_max_body_size 64m; Apache: LimitRequestBody; "
        + "Nextcloud/PHP: upload_max_filesize and post_max_size), or tell Quire with `quire remote set URL --max-object-size SIZE`"

    static func hint(for error: CryptoError) -> String? {
        switch error.kind {
        case .wrongPassphrase: return "use the passphrase given to `quire remote init` or `quire passwd`"
        case .unauthenticated: return "that object was damaged or altered on the server; nothing of it was used"
        default: return nil
        }
    }

    static func hint(for error: ExportError) -> String? {
        switch error.kind {
        case .template: return "fix that template, or leave it out of --templates to use the built-in one"
        case .invalid, .io: return nil
        }
    }

    static func hint(for error: SyncError) -> String? {
        switch error.kind {
        case .noRemote: return "run `quire remote set URL` first"
        case .alreadySyncs: return "a journal belongs to one repository; restore into a new store to move"
        case .noRepository: return "check the URL (`quire remote`), or create a repository with `quire remote init`"
        case .wrongRepository: return "point `quire remote set` back at this journal's repository; nothing was changed"
        case .alreadyExists: return "a journal can join an existing repository by restoring from it"
        case .badConfig: return nil
        case .noKey: return "run `quire sync` once on a terminal to unlock it; the key is then kept in the store"
        case .rolledBack, .emptied, .missing:
            return "the server lost or rewound data; nothing was changed here. Check the server (`quire verify`) or its URL"
        case .damaged: return "that object was damaged or altered on the server; nothing of it was used (`quire verify` lists all)"
        case .locked: return "wait for the other sync to finish"
        case .notEmpty: return "restore into a new folder: quire --store DIR restore URL"
        case .tooLarge: return Self.bodyLimitHint
        case .cancelled: return "run it again to continue"
        case .stale: return "nothing was kept here. Check that the URL is the repository your other machines sync with, then sync one of them"
        }
    }
}
