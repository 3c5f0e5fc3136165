import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A folder that is written and cleaned only beneath itself. Every relative path is walked
/// one component at a time from the folder's descriptor with `O_NOFOLLOW`, so a symbolic
/// link planted inside (`attachments -> ~/.config/autostart` in a shared vault) is an error,
/// never a way out; removing goes through `unlinkat`, which removes a link, never its target.
/// Files are created 0600 and folders 0700: what lands here is the plaintext journal.
package final class ConfinedFolder {
    package let path: String
    private let fd: Int32

    /// Opens `path` (the user named it: a link to it is followed), creating it 0700 when missing.
    /// - Throws: `.io` naming the folder.
    package init(path: String) throws {
        try FileIO.makeFolder(path)
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError(.io, path: path, detail: FileIO.errnoText()) }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Opens folder `relative` beneath this one, creating missing components (0700) when
    /// `create`; nil when it is missing and not to be created. The caller closes it.
    private func openFolder(_ parts: ArraySlice<String>, create: Bool) throws -> Int32? {
        try Self.walk(from: fd, at: path, through: parts, create: create, failing: .io)
    }

    /// Opens the folder `parts` leads to beneath the open folder `fd` (shown as `base`), one
    /// component at a time with `O_NOFOLLOW`, creating missing ones (0700) when `create`;
    /// nil when one is missing and not to be created. `fd` stays open; the caller closes the
    /// result. Imports read and exports write beneath a folder through this one walk.
    /// - Throws: `kind` naming the component that is a link, not a folder, or unreadable.
    static func walk(from fd: Int32, at base: String, through parts: ArraySlice<String>, create: Bool,
                     failing kind: StoreError.Kind) throws -> Int32? {
        var current = dup(fd)
        guard current >= 0 else { throw StoreError(kind, path: base, detail: FileIO.errnoText()) }
        var walked = base
        for part in parts {
            walked += "/" + part
            if create && mkdirat(current, part, 0o700) != 0 && errno != EEXIST {
                let reason = FileIO.errnoText()
                close(current)
                throw StoreError(kind, path: walked, detail: reason)
            }
            let next = openat(current, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(current)
            guard next >= 0 else {
                if code == ENOENT && !create { return nil }
                throw StoreError(kind, path: walked, detail: linkReason(code))
            }
            current = next
        }
        return current
    }

    /// `O_NOFOLLOW` answers ELOOP for a link as the last component, and ELOOP or ENOTDIR
    /// (with `O_DIRECTORY`) for one before it.
    static func linkReason(_ code: Int32) -> String {
        code == ELOOP || code == ENOTDIR ? "is a symbolic link or not a folder; no link is followed beneath the folder"
                                         : FileIO.errnoText(code)
    }

    private static func split(_ relative: String) throws -> [String] {
        let parts = relative.split(separator: "/").map(String.init)
        guard !parts.isEmpty, !relative.hasPrefix("/"), !parts.contains(".."), !parts.contains(".") else {
            throw StoreError(.invalid, path: relative, detail: "not a path inside the folder")
        }
        return parts
    }

    /// Creates folder `relative` and its parents (0700) beneath this one.
    package func makeFolder(_ relative: String) throws {
        if let folder = try openFolder(Self.split(relative)[...], create: true) { close(folder) }
    }

    /// Writes file `relative` atomically: `body` fills a temporary file in the same folder,
    /// which is then renamed over the name (`renameat` replaces a link there, never its target).
    package func writeFile(_ relative: String, mode: mode_t = 0o600, sync: Bool = false, _ body: (Int32) throws -> Void) throws {
        let parts = try Self.split(relative)
        guard let folder = try openFolder(parts.dropLast(), create: true), let name = parts.last else { return }
        defer { close(folder) }
        let shown = path + "/" + relative
        let temp = ".tmp-" + UUID().uuidString.lowercased()
        let out = openat(folder, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard out >= 0 else { throw StoreError(.io, path: shown, detail: FileIO.errnoText()) }
        do {
            try body(out)
            guard !sync || fsync(out) == 0 else { throw StoreError(.io, path: shown, detail: FileIO.errnoText()) }
            close(out)
        } catch {
            close(out)
            unlinkat(folder, temp, 0)
            throw error
        }
        guard renameat(folder, temp, folder, name) == 0 else {
            let reason = FileIO.errnoText()
            unlinkat(folder, temp, 0)
            throw StoreError(.io, path: shown, detail: reason)
        }
        if sync { fsync(folder) }
    }

    package func writeText(_ text: String, to relative: String, sync: Bool = false) throws {
        try writeFile(relative, sync: sync) { out in
            try Array(text.utf8).withUnsafeBytes { try FileIO.writeAll(out, $0, path: path + "/" + relative) }
        }
    }

    /// Copies `source` (a file of the store) to `relative`, in constant memory.
    package func copy(from source: String, to relative: String) throws {
        let input = try FileIO.openForReading(source)
        defer { close(input) }
        try writeFile(relative) { out in try FileIO.copy(input, source: source, to: out, destination: path + "/" + relative) }
    }

    /// The bytes of regular file `relative` (no link followed), or nil when it is missing.
    package func read(_ relative: String, limit: Int) throws -> Data? {
        let parts = try Self.split(relative)
        guard let folder = try openFolder(parts.dropLast(), create: false), let name = parts.last else { return nil }
        defer { close(folder) }
        let fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { return nil }
        let input = try FileIO.checkRegular(fd, path: path + "/" + relative)
        defer { close(input) }
        return try FileIO.readAll(input, limit: limit, path: path + "/" + relative)
    }

    /// Removes file `relative` (a link is removed, not followed) and then its parent folders
    /// as long as they are empty. A path through a link removes nothing.
    package func remove(_ relative: String) {
        guard let parts = try? Self.split(relative), let name = parts.last else { return }
        var folders = Array(parts.dropLast())
        guard let folder = try? openFolder(folders[...], create: false) else { return }
        unlinkat(folder, name, 0)
        close(folder)
        while let last = folders.popLast() {
            guard let parent = try? openFolder(folders[...], create: false) else { return }
            let removed = unlinkat(parent, last, AT_REMOVEDIR) == 0
            close(parent)
            if !removed { return }
        }
    }

    /// Flushes the folder's own entries.
    package func sync() { fsync(fd) }
}
