import Foundation

/// One Swift Testing test of this test binary, run in a process of its own: for what a test must not do in
/// the shared one (hold every Dispatch worker, die with a mount). The child test is enabled by a variable
/// of `environment` that the parent process does not have.
package enum ChildTest {
    /// Runs the tests `filter` matches (`Suite/test`) with `environment` added; Swift Testing reports on
    /// standard error.
    package static func run(_ filter: String, environment: [String: String], timeout: TimeInterval = 120) throws
        -> CommandResult
    {
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return Command.run(
            binary, ["--testing-library", "swift-testing", "--filter", filter], environment: environment,
            timeout: timeout)
    }
}
