/// The Crypto layer's one error type. `unauthenticated` is the single answer for anything
/// that fails to decrypt or verify — damaged, truncated, swapped or forged — naming the object.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// Ciphertext that does not authenticate: damaged, truncated, reordered or not ours.
        case unauthenticated
        /// No key file opens with this passphrase.
        case wrongPassphrase
        /// A key file that is not well-formed or asks for absurd KDF parameters.
        case badKeyFile
        /// libsodium failed (out of memory, not initialised).
        case library
    }

    public let kind: Kind
    /// The object (remote path or blob id) concerned, never key material.
    public let object: String?
    public let detail: String

    package init(_ kind: Kind, object: String? = nil, detail: String) {
        self.kind = kind
        self.object = object
        self.detail = detail
    }

    public var description: String {
        (object.map { $0 + ": " } ?? "") + detail
    }
}
