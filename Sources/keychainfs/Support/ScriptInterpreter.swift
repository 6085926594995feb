import Foundation

/// The interpreter a `#!` script names: the kernel runs that program, not the script, so /proc/PID/exe of
/// the script's process is the interpreter and a rule for the script's path could never match it.
enum ScriptInterpreter {
    /// The `#!` line's interpreter (its first word) when `path` is a regular file starting with `#!`; nil
    /// for anything else, a missing file included. Opened without blocking (a FIFO ends at once).
    static func of(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        // The kernel reads at most this much of the line (BINPRM_BUF_SIZE).
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = read(fd, &buffer, buffer.count)
        guard n >= 2, buffer[0] == UInt8(ascii: "#"), buffer[1] == UInt8(ascii: "!") else { return nil }
        let line = buffer[2..<n].prefix { $0 != UInt8(ascii: "\n") }
        let word = line.drop { $0 == 0x20 || $0 == 0x09 }.prefix { $0 != 0x20 && $0 != 0x09 }
        return word.isEmpty ? "(none named)" : TerminalText.escaped(String(decoding: word, as: UTF8.self))
    }
}
