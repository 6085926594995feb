import Foundation
import Testing

/// docs/layout.md names every folder of the tree that holds code, tests or tools, and every script, so the
/// page a newcomer reads first cannot fall behind the tree (docs/architecture.md, "Rules a test holds").
@Suite struct LayoutDocumentTests {
    static let root = ArchitectureRulesTests.root.path

    /// The entries the page must name: `Folder/` for every directory under Sources, Tests and Examples and at
    /// the top (hidden ones aside), and every file in scripts/.
    static func entries() -> [String] {
        let fm = FileManager.default
        func directories(_ path: String) -> [String] {
            ((try? fm.contentsOfDirectory(atPath: root + "/" + path)) ?? []).filter { name in
                var isDirectory: ObjCBool = false
                return !name.hasPrefix(".")
                    && fm.fileExists(atPath: root + "/\(path)/\(name)", isDirectory: &isDirectory)
                    && isDirectory.boolValue
            }.sorted()
        }
        let nested = ["Sources", "Tests", "Examples"].flatMap { directories($0).map { $0 + "/" } }
        let top = directories("").map { $0 + "/" }
        let scripts = ((try? fm.contentsOfDirectory(atPath: root + "/scripts")) ?? []).sorted()
        return nested + top + scripts
    }

    static func missing(from page: String, _ entries: [String]) -> [String] {
        entries.filter { entry in
            page.ranges(of: entry).contains { range in
                range.lowerBound == page.startIndex || !page[page.index(before: range.lowerBound)].isLetter
            } == false
        }
    }

    @Test func everyFolderAndScriptIsOnThePage() throws {
        let page = try String(contentsOfFile: Self.root + "/docs/layout.md", encoding: .utf8)
        let entries = Self.entries()
        #expect(entries.contains("KeychainFSEngine/") && entries.contains("test.sh"), "\(entries)")
        let missing = Self.missing(from: page, entries)
        #expect(missing.isEmpty, "docs/layout.md does not name: \(missing)")
        // A name inside a longer one does not count: "Probe/" is not named by "SecKeyProbe/".
        #expect(Self.missing(from: "  SecKeyProbe/ runs it", ["Probe/", "SecKeyProbe/"]) == ["Probe/"])
    }

    /// The target graph of docs/architecture.md names every target but the tests (drawn without the prefix).
    @Test func theArchitectureGraphNamesEveryTarget() throws {
        let page = try String(contentsOfFile: Self.root + "/docs/architecture.md", encoding: .utf8)
        let manifest = try String(contentsOfFile: Self.root + "/Package.swift", encoding: .utf8)
        let targets = ManifestTarget.all(in: manifest).filter {
            $0.kind != "testTarget" && !$0.path.hasPrefix("Tests/") && !$0.path.hasPrefix("fuzz/")
        }
        #expect(targets.count > 20)
        let drawn = targets.map { $0.name.hasPrefix("KeychainFS") ? String($0.name.dropFirst(10)) : $0.name }
        let words = Set(page.split { !$0.isLetter && !$0.isNumber && $0 != "-" }.map(String.init))
        let missing = drawn.filter { !words.contains($0) }
        #expect(missing.isEmpty, "docs/architecture.md does not draw: \(missing)")
    }
}
