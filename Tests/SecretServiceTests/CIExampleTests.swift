import Foundation
import KeychainFSTestSupport
import Testing

/// The examples of docs/ci.md, run: the GitHub Actions job's steps after "Install keychainfs" as the runner
/// would run them (bash -e, keychainfs on PATH), and the container's entry point with its default command;
/// the container's packages exist in Debian 12.
@Suite(.timeLimit(.minutes(3))) struct CIExampleTests {
    static let packaging = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("packaging/ci").path

    /// A PATH with the built keychainfs first, and an environment without a session bus.
    func runnerEnvironment() throws -> [String: String] {
        let bin = TestDirectory.root + "/ci-example-bin-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(
            atPath: bin + "/keychainfs", withDestinationPath: MountedVault.binary)
        return [
            "PATH": bin + ":/usr/local/bin:/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": "", "KEYCHAIN_VAULT": "",
            "XDG_DATA_HOME": bin + "/data",
        ]
    }

    /// The `run: |` scripts of the job's steps, by step name, in order.
    static func steps(ofWorkflow text: String) -> [(name: String, script: String)] {
        var steps: [(name: String, script: String)] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst() {
            guard let name = line.firstMatch(of: /^\s*- name: (.+)$/)?.output.1 else { continue }
            guard let run = lines.first, let indent = run.firstMatch(of: /^(\s*)run: \|$/)?.output.1.count else {
                continue
            }
            lines = lines.dropFirst()
            var script: [Substring] = []
            while let next = lines.first, next.isEmpty || next.prefix(while: { $0 == " " }).count > indent {
                script.append(next.dropFirst(min(next.count, indent + 2)))
                lines = lines.dropFirst()
            }
            steps.append((String(name), script.joined(separator: "\n")))
        }
        return steps
    }

    @Test func theGitHubJobsKeyringStepsPass() throws {
        let text = try String(contentsOfFile: Self.packaging + "/github-actions.yml", encoding: .utf8)
        let steps = Self.steps(ofWorkflow: text)
        let install = try #require(steps.firstIndex { $0.name == "Install keychainfs" })
        let checked = steps[(install + 1)...]
        #expect(checked.count >= 2, "\(steps.map(\.name))")
        let environment = try runnerEnvironment()
        for step in checked {
            let run = Command.run("/bin/bash", ["-e", "-c", step.script], environment: environment, timeout: 120)
            #expect(run.succeeded, "\(step.name): \(run.stderr)\(run.stdout)")
        }
        // The parser reads what it should: a failing step fails.
        let failing = Command.run(
            "/bin/bash", ["-e", "-c", "keychainfs ci-keyring -- false"], environment: environment)
        #expect(failing.status == 1)
    }

    @Test func theContainersPackagesExistAndItsEntryPointRuns() throws {
        let text = try String(contentsOfFile: Self.packaging + "/Dockerfile", encoding: .utf8)
        let install = try #require(text.firstMatch(of: /apt-get install -y --no-install-recommends ([^\\\n]+)/))
        let packages = install.output.1.split(separator: " ").filter { !$0.contains("/") }
        #expect(packages.count >= 3)
        for package in packages {
            #expect(Command.run("/usr/bin/apt-cache", ["show", String(package)]).succeeded, "\(package) in Debian 12")
        }
        func array(_ instruction: String) throws -> [String] {
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(instruction + " ") })
            let json = Data(line.dropFirst(instruction.count + 1).utf8)
            return try #require(try JSONSerialization.jsonObject(with: json) as? [String])
        }
        let command = try array("ENTRYPOINT") + array("CMD")
        let run = Command.run(
            "/usr/bin/env", command, environment: try runnerEnvironment(), timeout: 120)
        #expect(run.succeeded && run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "s3", "\(run.stderr)")
    }
}
