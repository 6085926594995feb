import Foundation

/// What the kit's waits share: `probe` asked every millisecond, this thread sleeping in between, until it
/// gives a value or `timeout` runs out (then its last answer). For waits a test makes on its own thread
/// (a call at a prompt, the prompt itself), which nothing signals.
func poll<T>(for timeout: Duration, _ probe: () -> T?) -> T? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let value = probe() { return value }
        usleep(1000)
    }
    return probe()
}
