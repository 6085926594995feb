import Foundation
import Testing

/// Package.swift says what each target depends on, and the imports agree (docs/architecture.md, "Rules a
/// test holds"): a module of ours or of a dependency imported without being declared builds only by
/// chance of the build order; one declared and never imported makes the graph claim what is not there.
@Suite struct TargetDependencyRulesTests {
    static let manifest =
        (try? String(
            contentsOf: ArchitectureRulesTests.root.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""

    /// "target imports module" for every import of a module of ours or of a dependency the target does not declare.
    static func undeclaredImports(_ targets: [ManifestTarget], products: Set<String>, files: (String) -> [Substring])
        -> [String]
    {
        let known = Set(targets.map(\.name)).union(products)
        return targets.flatMap { target in
            Set(files(target.path).compactMap(ManifestTarget.importedModule)).filter {
                known.contains($0) && $0 != target.name && !target.dependencies.contains($0)
            }.sorted().map { "\(target.name) imports \($0)" }
        }
    }

    /// "target declares module" for every library dependency none of the target's files imports (executables
    /// are declared to be built, not imported).
    static func unusedDependencies(_ targets: [ManifestTarget], files: (String) -> [Substring]) -> [String] {
        let executables = Set(targets.filter(\.isExecutable).map(\.name))
        return targets.filter { $0.kind != "systemLibrary" }.flatMap { target in
            let imported = Set(files(target.path).compactMap(ManifestTarget.importedModule))
            return target.dependencies.subtracting(imported).subtracting(executables).sorted().map {
                "\(target.name) declares \($0)"
            }
        }
    }

    /// The import lines of the Swift files under `folder` (the rest is never looked at).
    static func lines(under folder: String) -> [Substring] {
        ArchitectureRulesTests.swiftFiles(under: folder).flatMap { $0.lines.filter { $0.contains("import ") } }
    }

    @Test func everyImportIsDeclaredAndEveryDeclarationImported() {
        let targets = ManifestTarget.all(in: Self.manifest)
        #expect(targets.count > 40, "the manifest was read: \(targets.map(\.name))")
        #expect(targets.contains { $0.name == "Security" && $0.dependencies.contains("X509") })
        let products = ManifestTarget.products(in: Self.manifest)
        let files = Dictionary(targets.map { ($0.path, Self.lines(under: $0.path)) }) { first, _ in first }
        let undeclared = Self.undeclaredImports(targets, products: products) { files[$0] ?? [] }
        #expect(undeclared.isEmpty, "declare them in Package.swift:\n\(undeclared.joined(separator: "\n"))")
        let unused = Self.unusedDependencies(targets) { files[$0] ?? [] }
        #expect(unused.isEmpty, "drop them from Package.swift:\n\(unused.joined(separator: "\n"))")
    }

    /// The rules catch what they are for: a planted manifest and files.
    @Test func theRulesSeeAPlantedViolation() {
        let manifest = """
            .target(name: "A", dependencies: ["B", .product(name: "Crypto", package: "swift-crypto")]),
            .target(name: "B", dependencies: [], path: "Sources/Bee"),
            .executableTarget(name: "tool", dependencies: ["A"]),
            .testTarget(name: "ATests", dependencies: ["A", "tool"]),
            """
        let targets = ManifestTarget.all(in: manifest)
        #expect(targets.map(\.name) == ["A", "B", "tool", "ATests"])
        #expect(targets[1].path == "Sources/Bee" && targets[3].path == "Tests/ATests")
        let files: [String: [Substring]] = [
            "Sources/A": ["import B", "@testable import Crypto", "import Foundation"],
            "Sources/Bee": ["internal import A"],  // not declared
            "Sources/tool": ["import A"],
            "Tests/ATests": ["@_spi(Tests) import A", "import B"],  // B not declared
        ]
        let products = ManifestTarget.products(in: manifest)
        #expect(
            Self.undeclaredImports(targets, products: products) { files[$0] ?? [] } == [
                "B imports A", "ATests imports B",
            ])
        let unused = Self.unusedDependencies(targets) { files[$0] ?? [] }
        #expect(unused.isEmpty, "\(unused)")
        #expect(
            Self.unusedDependencies(targets) { $0 == "Sources/A" ? ["import B"] : files[$0] ?? [] } == [
                "A declares Crypto"
            ])
    }
}
