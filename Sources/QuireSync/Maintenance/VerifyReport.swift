import Foundation

/// One thing `verify` found wrong.
public struct VerifyProblem: Sendable {
    /// The repository object, as its path.
    public var object: String
    public var detail: String
}

/// What `verify` looked at.
public struct VerifyReport: Sendable {
    public var devices = 0
    public var segments = 0
    public var blobs = 0
    public var blobsRead = 0
    public var problems: [VerifyProblem] = []
    /// Objects `verify --repair` put back before it looked (`RepairEngine`).
    public var repaired = 0
}
