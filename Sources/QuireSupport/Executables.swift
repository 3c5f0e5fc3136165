import Foundation

/// Programs Quire runs beside itself (ffmpeg, the speech engine), found as a shell would.
package enum Executables {
    /// The first executable `name` on `environment`'s `PATH` (a plain default when unset),
    /// nil when none is installed.
    package static func find(_ name: String, in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
