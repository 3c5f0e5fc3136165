import Foundation
import QuireStore

/// A JSON document read by an importer, and the typed fields it takes out of one.
enum JSONFile {
    /// - Throws: `ImportError` naming `path` (and `place`) and where the JSON breaks.
    static func parse(_ data: Data, path: String, place: String?) throws -> JSONValue {
        let result: Result<JSONValue, JSONValue.ParseError> = data.withUnsafeBytes { raw in
            do throws(JSONValue.ParseError) {
                return .success(try JSONValue.parse(raw.bindMemory(to: UInt8.self)))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error):
            throw ImportError(path: path, place: place, detail: "is not JSON (\(error.reason) at byte \(error.offset + 1))")
        }
    }
}

/// The fields of one JSON object, each read as its type or refused with the key's name.
struct JSONFields {
    let object: [String: JSONValue]
    let error: (String) -> ImportError

    func string(_ key: String) throws -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let s = value.string else { throw error("\"\(key)\" must be text") }
        return s
    }

    func number(_ key: String) throws -> Double? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let n = value.number, n.isFinite else { throw error("\"\(key)\" must be a number") }
        return n
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .bool(let b) = value else { throw error("\"\(key)\" must be true or false") }
        return b
    }

    func strings(_ key: String) throws -> [String] {
        guard let value = object[key], !value.isNull else { return [] }
        guard let items = value.array else { throw error("\"\(key)\" must be a list of text") }
        return try items.map { item in
            guard let s = item.string else { throw error("\"\(key)\" must be a list of text") }
            return s
        }
    }

    func objects(_ key: String) throws -> [JSONFields] {
        guard let value = object[key], !value.isNull else { return [] }
        guard let items = value.array else { throw error("\"\(key)\" must be a list") }
        return try items.enumerated().map { index, item in
            guard let o = item.object else { throw error("\"\(key)\"[\(index + 1)] must be an object") }
            return JSONFields(object: o, error: { self.error("\(key)[\(index + 1)]: " + $0) })
        }
    }

    func fields(_ key: String) throws -> JSONFields? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let o = value.object else { throw error("\"\(key)\" must be an object") }
        return JSONFields(object: o, error: { self.error("\(key): " + $0) })
    }
}
