import Foundation
import Testing
@testable import QuireExport
@testable import QuireStore

/// The official Mustache spec suite, vendored in Fixtures/mustache-spec (its LICENSE and
/// SOURCE-COMMIT beside it), every test of the required modules. Inheritance (optional) and
/// lambdas are not implemented.
@Suite struct MustacheSpecTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/mustache-spec")

    struct Case: CustomTestStringConvertible, Sendable {
        let file: String, name: String, template: String, expected: String
        let data: JSONValue
        let partials: [String: String]
        var testDescription: String { "\(file): \(name)" }
    }

    static let cases: [Case] = {
        var cases: [Case] = []
        for file in ["comments", "delimiters", "interpolation", "inverted", "partials", "sections"] {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(file + ".json"), encoding: .utf8),
                  let root = try? JSONValue.parse(text), let tests = root.object?["tests"]?.array else { continue }
            for test in tests {
                guard let o = test.object, let name = o["name"]?.string, let template = o["template"]?.string,
                      let expected = o["expected"]?.string else { continue }
                var partials: [String: String] = [:]
                for (k, v) in o["partials"]?.object ?? [:] { partials[k] = v.string ?? "" }
                cases.append(Case(file: file, name: name, template: template, expected: expected, data: o["data"] ?? .null,
                                  partials: partials))
            }
        }
        return cases
    }()

    @Test func theSuiteIsThere() {
        #expect(Self.cases.count >= 130, "the spec suite should be at \(Self.folder.path)")
    }

    @Test(arguments: cases)
    func specCase(_ test: Case) throws {
        let template = try MustacheTemplate(test.template, name: test.name)
        #expect(try template.render(MustacheValue(test.data), partials: test.partials) == test.expected)
    }

    @Test func errorsNameTheTemplateAndLine() {
        #expect {
            _ = try MustacheTemplate("a\nb\n{{#open}}\nc", name: "entry.xhtml")
        } throws: { ($0 as? MustacheTemplate.SyntaxError)?.description == "entry.xhtml:3: section {{#open}} is never closed" }
        #expect {
            _ = try MustacheTemplate("{{/nothing}}", name: "t")
        } throws: { ($0 as? MustacheTemplate.SyntaxError)?.line == 1 }
        #expect(throws: MustacheTemplate.SyntaxError.self) { _ = try MustacheTemplate("{{unclosed", name: "t") }
    }

    /// A template of one's own may nest too deep or multiply: an error naming it, never a
    /// crash (100,000 nested sections overflowed the stack) or an export that never ends.
    @Test func aRunawayTemplateIsAnError() throws {
        let deep = String(repeating: "{{#a}}", count: 100_000) + "x" + String(repeating: "{{/a}}", count: 100_000)
        #expect {
            _ = try MustacheTemplate(deep, name: "entry.md")
        } throws: { ($0 as? MustacheTemplate.SyntaxError)?.description == "entry.md:1: sections nest more than 32 deep" }
        // Thirty-two sections deep is allowed; over a list of ten, each inside the next, it
        // would render 10³² times.
        let nested = String(repeating: "{{#tags}}", count: 32) + "{{.}}" + String(repeating: "{{/tags}}", count: 32)
        let template = try MustacheTemplate(nested, name: "entry.md")
        let tags = MustacheValue.object(["tags": .list((0..<10).map { .number(Double($0)) })])
        #expect {
            _ = try template.render(tags, partials: MustachePartials([:]), steps: 100_000)
        } throws: { ($0 as? MustacheTemplate.SyntaxError)?.description.hasPrefix("entry.md:1: renders more than 100000 tags for one page") == true }
        #expect(try MustacheTemplate(String(repeating: "{{#a}}", count: 32) + "x" + String(repeating: "{{/a}}", count: 32))
            .render(.object(["a": .bool(true)])) == "x")
    }
}
