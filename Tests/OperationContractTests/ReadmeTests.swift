import Foundation
import Testing

/// The README's example is the sample's code, word for word: it cannot rot.
@Suite("OperationContract's example in the READMEs")
struct ReadmeTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL

    @Test(
        "every swift block about the kit in README.md and Chapters/OperationContract/README.md is in the sample's tests",
        arguments: ["README.md", "Chapters/OperationContract/README.md"])
    func exampleIsTheSample(_ readme: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(readme), encoding: .utf8)
        let sample = try String(
            contentsOf: Self.root.appendingPathComponent(
                "Chapters/OperationContract/Sample/Tests/SampleAppTests/ContractTests.swift"),
            encoding: .utf8)
        let sampleLines = sample.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let blocks = text.components(separatedBy: "```swift\n").dropFirst()
            .map { $0.components(separatedBy: "\n```")[0] }
            .filter { $0.contains("checkContract") }
        #expect(!blocks.isEmpty, "\(readme) shows no example of checkContract")
        for block in blocks {
            let lines = block.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let found = sampleLines.indices.contains { start in
                start + lines.count <= sampleLines.count && Array(sampleLines[start..<start + lines.count]) == lines
            }
            #expect(found, "\(readme): this block is not in the sample's ContractTests.swift, word for word:\n\(block)")
        }
    }
}
