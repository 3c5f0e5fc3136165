import Foundation

/// Puts PNG photos into a finished PDF as their own compressed pixels. Cairo cannot take a
/// PNG's data as it is (only a JPEG's), so each such photo is drawn as a stand-in JPEG of
/// its size (`PNGStream.standIn`), which cairo embeds byte for byte. This reads the file
/// through libqpdf (`PDFReader`), follows each page's resources to its images, takes each
/// stand-in whose bytes and size are exactly those made for a photo, and replaces its image
/// object in one incremental update (`PDFUpdate`) as FlateDecode with PNG's predictors,
/// each photo copied from its file: memory stays small.
enum PNGPassThrough {
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot embed the PNG photos: " + reason }
    }

    /// - Parameters:
    ///   - marker: what every stand-in's comment starts with (then the photo's index and `;`).
    ///   - pages: the pages (0 = the first) the stand-ins are on, when known: only their
    ///     resources are read (a 10k-entry book's every page read through qpdf held 25 MB more).
    static func embed(_ images: [PNGStream], marker: String, pages: Set<Int>? = nil, in path: String) throws {
        guard !images.isEmpty else { return }
        do {
            let pdf = try PDFReader(path: path)
            var standIns: [[UInt8]: Int] = [:]
            for (index, image) in images.enumerated() { standIns[image.standIn(marker: marker + "\(index);")] = index }
            let longest = standIns.keys.map(\.count).max() ?? 0
            var found = Set<Int>(), update = PDFUpdate()
            try forEachImage(in: pdf, pages: pages) { image, number in
                // A stand-in is a few hundred bytes; a photo's own JPEG is not read.
                guard pdf.value("Filter", in: image).flatMap(pdf.name) == "/DCTDecode",
                      let length = pdf.value("Length", in: image).flatMap(pdf.integer), length <= longest,
                      let index = standIns[try pdf.streamData(image, decoded: false)] else { return }
                let photo = images[index]
                guard pdf.value("Width", in: image).flatMap(pdf.integer) == photo.width,
                      pdf.value("Height", in: image).flatMap(pdf.integer) == photo.height else { return }
                let interpolate = pdf.value("Interpolate", in: image).map { pdf.text($0) } == "true"
                update.replace(number, dictionary: photo.dictionary(interpolate: interpolate)) { try photo.copy(to: $0) }
                found.insert(index)
            }
            // Every photo drawn must have been found: a cairo that writes its stand-ins otherwise
            // would ship pages with the grey stand-in where the photo should be, unsaid.
            if let missing = images.indices.first(where: { !found.contains($0) }) {
                throw Failure(reason: "PNG photo \(missing + 1) of \(images.count) was not where cairo should have put it; "
                              + "this cairo writes images in a way Quire does not know")
            }
            try update.write(to: path, reading: pdf)
        } catch let failure as PDFReader.Failure {
            throw Failure(reason: failure.reason)
        }
    }

    /// Calls `body` with every image object the pages use: through their resources, and the
    /// resources of the forms and patterns in them, each object once.
    private static func forEachImage(in pdf: PDFReader, pages wanted: Set<Int>?, _ body: (PDFReader.Object, Int) throws -> Void) throws {
        var seen = Set<Int>()
        func visit(_ object: PDFReader.Object, depth: Int) throws {
            guard depth < 32 else { throw PDFReader.Failure(reason: "resources nested too deep") }
            if let number = pdf.number(of: object) {
                guard seen.insert(number).inserted else { return }
            }
            if pdf.isStream(object) {
                switch pdf.value("Subtype", in: object).flatMap(pdf.name) {
                case "/Image":
                    if let number = pdf.number(of: object) { try body(object, number) }
                    return
                case "/Form":
                    if let resources = pdf.value("Resources", in: object) { try visit(resources, depth: depth + 1) }
                    return
                default:
                    // A pattern's stream keeps its resources too; any other stream holds no images.
                    if let resources = pdf.value("Resources", in: object) { try visit(resources, depth: depth + 1) }
                    return
                }
            }
            if pdf.isDictionary(object) {
                for key in pdf.keys(of: object) where key != "Parent" {
                    if let value = pdf.value(key, in: object) { try visit(value, depth: depth + 1) }
                }
            } else {
                for item in pdf.items(of: object) { try visit(item, depth: depth + 1) }
            }
        }
        for (index, page) in try pdf.pagesListed().enumerated() where wanted?.contains(index) ?? true {
            if let resources = pdf.value("Resources", in: page) { try visit(resources, depth: 0) }
        }
    }
}
