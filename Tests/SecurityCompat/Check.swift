import Foundation

/// What the program found: one line per check, "ok NAME" or "FAIL NAME: WHAT".
nonisolated(unsafe) var failures = 0

func check(_ condition: Bool, _ name: String, _ detail: @autoclosure () -> String = "") {
    if condition {
        print("ok \(name)")
    } else {
        failures += 1
        print("FAIL \(name): \(detail())")
    }
}

/// A service no other run uses.
func freshService(_ name: String) -> String { "compat.\(name).\(UUID().uuidString.prefix(8))" }
