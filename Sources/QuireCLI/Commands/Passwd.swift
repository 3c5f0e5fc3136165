import Foundation
import QuireKit

struct PasswdCommand: Command {
    static let name = "passwd"
    static let abstract = "Change the repository passphrase (rewrites one small key file, never the data)."
    static let usage = """
        Usage: quire passwd [--passphrase-file F] [--new-passphrase-file F]

        The current passphrase comes from --passphrase-file, QUIRE_PASSPHRASE or a prompt; the
        new one from --new-passphrase-file, QUIRE_NEW_PASSPHRASE or a prompt (asked twice).
        The new key file is written before the old one is removed: if this is interrupted,
        both passphrases still work and running it again finishes the change. In a bucket
        that keeps old versions (S3 versioning; Backblaze B2 always), the old key file would
        stay as one, which the old passphrase opens: every old version of a key file is
        deleted too, or, where the server refuses that, you are told.
        """
    static let options: [OptionSpec] = [
        .passphraseFile,
        .value("new-passphrase-file", "F", "read the new passphrase from F (else QUIRE_NEW_PASSPHRASE, else a prompt, twice)"),
    ]

    static func run(_ arguments: Arguments, context: Context) throws {
        _ = try arguments.positionals()
        let store = try context.openStore()
        guard let remote = try store.remoteSettings() else { throw SyncError.noRemoteSet }
        guard remote.repositoryID != nil else {
            throw CLIError.failure("this journal has no repository yet", hint: "run `quire remote init` first")
        }
        let (journal, _, _) = try SyncSession.journal(store, arguments, context: context)
        let repository = try SyncSession.askingAgain(arguments, context: context) {
            try journal.openRepository(passphrase: try Secrets.passphrase(arguments, context: context, prompt: "Current passphrase"))
        }
        let new = try Secrets.passphrase(arguments, context: context, confirm: true, fileOption: "new-passphrase-file",
                                         variable: "QUIRE_NEW_PASSPHRASE", prompt: "New passphrase")
        let change = try journal.changePassphrase(of: repository, to: new, cost: try Secrets.kdfCost(context))
        Secrets.warnIfShort(new, context: context)
        context.printError(sentence(change, repository: String(repository.id.prefix(8)), oldKey: "keys/" + repository.keyName))
    }

    /// What changed, and what of the old passphrase the server may still keep.
    static func sentence(_ change: PassphraseChange, repository: String, oldKey: String) -> String {
        let done = "Changed the passphrase of repository \(repository): the new one opens it"
        if change.oldKeyKept {
            return done + ". But the bucket keeps old versions, and would not let Quire delete those of the old key file (\(oldKey) in the "
                + "repository): until a lifecycle rule expires them or you delete them, the old passphrase still opens the repository for anyone who can read them."
        }
        if change.oldKeyInTrash {
            return done + ". But Nextcloud (or ownCloud) keeps deleted files in its trash bin, the old key file (\(oldKey)) among them, and the "
                + "old passphrase opens it: delete it from Deleted files to finish the change."
        }
        return done + ", the old one no longer does."
    }
}
