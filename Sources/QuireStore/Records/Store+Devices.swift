import Foundation

/// Names for the machines that write to a journal (`quire device name laptop`): a record of
/// kind `device` per machine, synced and merged like any other (last writer wins), so every
/// machine says "laptop" where it would say a UUID.
extension Store {
    /// Names this machine; an empty name forgets it (its id is shown again).
    /// - Throws: `.invalid` for a name with control characters or over 200 bytes.
    package func setDeviceName(_ name: String) throws {
        let clean = name.allSatisfy(\.isWhitespace) ? "" : try Self.cleanName(name, what: "device name")
        try write { writer in
            let current = try database.cached("SELECT name FROM device_names WHERE id = ?").first([.text(deviceID)]) { $0.text(0) }
            guard current != clean else { return }
            try database.cached("INSERT INTO device_names (id, name) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name")
                .run([.text(deviceID), .text(clean)])
            try writer.touch(.device, deviceID, "name")
        }
    }

    /// Every named machine's name, by device UUID (this one's included).
    package func deviceNames() throws -> [String: String] {
        var names: [String: String] = [:]
        try database.prepare("SELECT id, name FROM device_names WHERE name <> ''").forEach { names[$0.text(0)] = $0.text(1) }
        return names
    }

    /// How a person knows device `id`: its name, else the first 8 characters of its id;
    /// "this machine" is said by the caller where it fits.
    package func deviceLabel(_ id: String) throws -> String {
        try database.cached("SELECT name FROM device_names WHERE id = ? AND name <> ''").first([.text(id)]) { $0.text(0) } ?? String(id.prefix(8))
    }
}
