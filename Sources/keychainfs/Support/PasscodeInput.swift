import Foundation
import KeychainFSSodium

/// Passcodes come from a no-echo prompt on the terminal or, with `--passcode-stdin`, one per line on
/// standard input. Never from argv, where any user could read them in /proc.
struct PasscodeInput {
    let fromStdin: Bool
    private var stdinLines: [Data]?

    /// The most read from standard input: a few passcode lines.
    static let maximumInput = 64 << 10

    init(fromStdin: Bool) { self.fromStdin = fromStdin }

    /// The next passcode; `prompt` is shown on the terminal.
    mutating func next(_ prompt: String) throws -> Data {
        if fromStdin {
            if stdinLines == nil {
                guard var all = try BoundedInput.read(.standardInput, limit: Self.maximumInput) else {
                    throw CLIError(
                        "standard input is larger than \(BoundedInput.describe(Self.maximumInput)): expected passcode lines"
                    )
                }
                defer { Sodium.wipe(&all) }  // the lines are copies: the whole input is wiped here
                stdinLines = all.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
                    Data(line.last == 0x0D ? line.dropLast() : line)
                }
            }
            guard let line = stdinLines?.first, !line.isEmpty else {
                throw CLIError("expected one more passcode line on standard input")
            }
            stdinLines!.removeFirst()
            return line
        }
        return try Self.prompt(prompt)
    }

    /// A new passcode: asked twice on a terminal (a typo would lock the device), read once from standard input.
    mutating func newPasscode(prompt: String = "New passcode: ") throws -> Data {
        var passcode = try next(prompt)
        if !fromStdin {
            var again = try next("Again: ")
            defer { Sodium.wipe(&again) }
            if again != passcode {
                Sodium.wipe(&passcode)
                throw CLIError("the passcodes differ")
            }
        }
        return passcode
    }

    private static func prompt(_ prompt: String) throws -> Data {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { throw CLIError("no terminal to ask for the passcode: use --passcode-stdin") }
        defer { close(tty) }
        var saved = termios()
        tcgetattr(tty, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer {
            tcsetattr(tty, TCSAFLUSH, &saved)
            _ = write(tty, "\n", 1)
        }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        var line = Data()
        line.reserveCapacity(1025)  // no regrowth: a reallocation would leave a copy of the passcode behind
        var byte: UInt8 = 0
        while line.count <= 1024, read(tty, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        byte = 0
        guard !line.isEmpty else { throw CLIError("no passcode entered") }
        return line  // the caller wipes it after use
    }
}
