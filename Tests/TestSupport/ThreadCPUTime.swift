import Foundation

/// The CPU time the calling thread spends in `body`, in seconds: what a synchronous piece of work costs,
/// whatever else shares the cores (a wall-clock ratio of two sizes swung from 4x to 30x with the machine
/// loaded). For growth ratios; a hang guard still reads the wall clock.
public func threadCPUSeconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}
