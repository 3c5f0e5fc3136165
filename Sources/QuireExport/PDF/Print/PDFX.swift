import Foundation
import QuireStore
import QuireSupport

/// Makes the cover sheet a file a printer takes: PDF/X-3:2002 through Debian's Ghostscript
/// (`pdfwrite -dPDFX`), which flattens its translucent title band over the photo (PDF/X-3
/// has no transparency), its colour converted to CMYK or grey by Ghostscript's own ICC
/// profiles and named in the output intent, the page boxes and every font kept. The
/// interior, thousands of pages Ghostscript would re-interpret at ~30 a second, is finished
/// by `PrintFile` without it; both embed the profiles found here.
///
/// Ghostscript runs with `-dSAFER`, reading only the book, its own profile and the job file,
/// its temporary files in the book's private folder. Its output is made reproducible: the
/// dates are the book's (`SOURCE_DATE_EPOCH`), and the file identifier, which Ghostscript
/// draws from the clock, is replaced by a hash of the file.
enum PDFX {
    /// Refuses in one line, before anything is set, when Ghostscript or its profile for
    /// `color` is missing.
    static func checkInstalled(_ color: PrintSettings.Color) throws {
        _ = try tools(color)
    }

    /// Ghostscript and its output profile for `color`.
    private static func tools(_ color: PrintSettings.Color) throws -> (gs: String, profile: String) {
        guard let gs = Executables.find("gs"), let profile = profile(color) else {
            throw ExportError(.invalid, detail: "a print file is made as PDF/X through Ghostscript, which is not installed: apt install ghostscript")
        }
        return (gs, profile)
    }

    /// Ghostscript's own output profile for `color`: `default_cmyk.icc` (SWOP-like coated
    /// stock, what US printers' defaults assume) or `default_gray.icc`.
    static func profile(_ color: PrintSettings.Color) -> String? {
        profile(named: color == .cmyk ? "default_cmyk.icc" : "default_gray.icc")
    }

    /// One of Ghostscript's ICC profiles: Debian's `libgs-common` puts them in
    /// /usr/share/color/icc/ghostscript, and Ghostscript's own tree links to them.
    static func profile(named name: String) -> String? {
        let root = "/usr/share/ghostscript"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted().reversed()
        let places = ["/usr/share/color/icc/ghostscript"] + versions.map { "\(root)/\($0)/iccprofiles" }
        return places.map { "\($0)/\(name)" }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Writes `input` as PDF/X-3 to `output`; `work` is the book's private folder.
    /// - Parameters:
    ///   - epoch: the book's date in seconds since 1970 (its Info dates).
    static func convert(_ input: String, to output: String, settings: PrintSettings, title: String, epoch: Int64, work: String) throws {
        let (gs, profile) = try tools(settings.color)
        let job = work + "/pdfx.ps"
        guard FileManager.default.createFile(atPath: job, contents: Data(definitions(title: title, profile: profile, color: settings.color).utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw ExportError(.io, path: job, detail: "cannot write Ghostscript's job")
        }
        let gray = settings.color == .gray
        let arguments = ["-dSAFER", "-dBATCH", "-dNOPAUSE", "-dPDFX", "-sDEVICE=pdfwrite",
                         "--permit-file-read=" + profile, "--permit-file-read=" + work + "/",
                         "-sColorConversionStrategy=" + (gray ? "Gray" : "CMYK"),
                         "-sProcessColorModel=" + (gray ? "DeviceGray" : "DeviceCMYK"),
                         // Photos above 300 ppi at their printed size come down to it; none is raised.
                         "-dDownsampleColorImages=true", "-dColorImageResolution=300", "-dColorImageDownsampleThreshold=1.0",
                         "-dDownsampleGrayImages=true", "-dGrayImageResolution=300", "-dGrayImageDownsampleThreshold=1.0",
                         "-dColorImageDownsampleType=/Bicubic", "-dGrayImageDownsampleType=/Bicubic",
                         "-dAutoRotatePages=/None", "-sOutputFile=" + output, job, input]
        // What it says on stdout (its banner, "Page 1") is let go; its complaints go to a log
        // in the book's private folder.
        let finished: ChildProcess.Finished
        do {
            finished = try ChildProcess.run(gs, arguments, environment: ["PATH": "/usr/bin:/bin", "TMPDIR": work, "SOURCE_DATE_EPOCH": String(epoch), "LC_ALL": "C"],
                                            logFolder: work) { _ in }
        } catch ChildProcess.Failure.cannotStart(let reason) {
            throw ExportError(.io, detail: "Ghostscript (\(gs)) cannot be started: \(reason)")
        } catch {
            throw ExportError(.io, path: work, detail: "cannot write Ghostscript's log")
        }
        // Ghostscript makes a plain PDF instead when something is not allowed in PDF/X; that
        // is not what was asked for.
        if finished.status != 0 || finished.errors.contains("reverting to normal PDF") {
            throw ExportError(.io, detail: "Ghostscript could not make the PDF/X file: " + (finished.firstError ?? "exit status \(finished.status)"))
        }
        try stableIdentifier(in: output)
    }

    /// The job Ghostscript reads before the book: the Info entries PDF/X asks for and the
    /// output intent with its profile embedded (after Ghostscript's `lib/PDFX_def.ps`).
    static func definitions(title: String, profile: String, color: PrintSettings.Color) -> String {
        let condition = color == .cmyk ? "(CGATS TR 001)" : "(Custom)"
        let info = color == .cmyk ? "(Coated paper, Ghostscript's default CMYK)" : "(Grey, Ghostscript's default grey)"
        return """
            %!
            [ /GTS_PDFXVersion (PDF/X-3:2002) /Title \(hexText(title)) /Trapped /False /DOCINFO pdfmark
            [ /_objdef {icc_PDFX} /type /stream /OBJ pdfmark
            [ {icc_PDFX} << /N \(color == .cmyk ? 4 : 1) >> /PUT pdfmark
            [ {icc_PDFX} \(hexText(profile, utf16: false)) (r) file /PUT pdfmark
            [ /_objdef {OutputIntent_PDFX} /type /dict /OBJ pdfmark
            [ {OutputIntent_PDFX} << /Type /OutputIntent /S /GTS_PDFX /OutputCondition \(info)
              /OutputConditionIdentifier \(condition) /RegistryName (http://www.color.org)
              /DestOutputProfile {icc_PDFX} >> /PUT pdfmark
            [ {Catalog} << /OutputIntents [ {OutputIntent_PDFX} ] >> /PUT pdfmark

            """
    }

    /// A PostScript string in hex, which needs no escaping: UTF-16BE with its mark (how PDF
    /// text strings hold any script), or the bytes themselves for a file name.
    static func hexText(_ text: String, utf16: Bool = true) -> String {
        let bytes: [UInt8] = utf16 ? [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } : Array(text.utf8)
        return "<" + bytes.map { String(format: "%02X", $0) }.joined() + ">"
    }

    /// Replaces the trailer's `/ID [<…><…>]`, which Ghostscript draws from the clock, with
    /// the first 16 bytes of the SHA-256 of the file with the identifier blanked: the same
    /// book gives the same bytes. The identifier keeps its length, so nothing moves.
    static func stableIdentifier(in path: String) throws {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw ExportError(.io, path: path, detail: "cannot open the print file") }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        let tailStart = size > 2048 ? size - 2048 : 0
        try handle.seek(toOffset: tailStart)
        let tail = [UInt8](try handle.readToEnd() ?? Data())
        let marker = Array("/ID [<".utf8)
        guard tail.count >= marker.count,
              let at = (0...(tail.count - marker.count)).reversed().first(where: { tail[$0..<$0 + marker.count].elementsEqual(marker) }),
              at + marker.count + 32 + 2 + 32 + 2 <= tail.count else { return }
        let first = at + marker.count
        let second = first + 32 + 2
        guard tail[first + 32] == UInt8(ascii: ">"), tail[second - 1] == UInt8(ascii: "<") else { return }
        // Hash the file with both identifiers blanked to zeros.
        let blank = [UInt8](repeating: UInt8(ascii: "0"), count: 32)
        var hasher = SHA256()
        try handle.seek(toOffset: 0)
        var read: UInt64 = 0
        while read < tailStart {
            let chunk = try handle.read(upToCount: Int(min(1 << 20, tailStart - read))) ?? Data()
            guard !chunk.isEmpty else { break }
            chunk.withUnsafeBytes { hasher.update($0) }
            read += UInt64(chunk.count)
        }
        var blanked = tail
        blanked.replaceSubrange(first..<first + 32, with: blank)
        blanked.replaceSubrange(second..<second + 32, with: blank)
        blanked.withUnsafeBytes { hasher.update($0) }
        let id = Array(hasher.finalizeHex().prefix(32).uppercased().utf8)
        try handle.seek(toOffset: tailStart + UInt64(first))
        try handle.write(contentsOf: Data(id))
        try handle.seek(toOffset: tailStart + UInt64(second))
        try handle.write(contentsOf: Data(id))
    }
}
