import Foundation
import KeychainFSChildProcesses
import KeychainFSEngine
import KeychainFSModel

/// A TPM 2.0 under a simulated device (docs/tpm.md, docs/test-kit.md): the device's key is sealed by it,
/// its passcode checked by it and its Secure Enclave keys made in it, as in a vault made with `--tpm`.
/// Tests of the hardware path run where a TPM simulator is present and skip with a clear message where it
/// is not:
///
/// ```swift
/// @Test(.enabled(if: SimulatedTPM.isAvailable, "\(SimulatedTPM.unavailableReason ?? "")"))
/// func signsInTheTPM() throws {
///     let device = try SimulatedDevice(passcode: "1234", tpm: .swtpm)
///     …
/// }
/// ```
public struct SimulatedTPM: Sendable {
    enum Source: Sendable {
        case swtpm
        case tcti(String)
    }

    let source: Source

    /// A swtpm of the device's own (Debian's `swtpm`), its state in the device's directory, started with
    /// the device and stopped when it goes.
    public static let swtpm = SimulatedTPM(source: .swtpm)

    /// A TPM that is already running, reached through tpm2-tss's TCTI `tcti` (as `--tpm-tcti`). Devices on it
    /// share it: a hardware TPM counts their wrong passcodes together.
    public static func tcti(_ tcti: String) -> SimulatedTPM { SimulatedTPM(source: .tcti(tcti)) }

    static let executable = "/usr/bin/swtpm"

    /// Whether ``swtpm`` can start here.
    public static var isAvailable: Bool { unavailableReason == nil }

    /// Why ``swtpm`` cannot start here (nil when it can): the message a skipped test shows.
    public static var unavailableReason: String? {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            return "no TPM simulator: \(executable) is missing (apt install swtpm libtss2-tcti-swtpm0)"
        }
        return nil
    }
}

/// The swtpm process of one device: started in `directory`, killed and waited for by ``stop()``.
final class DeviceTPMProcess: Sendable {
    let pid: pid_t
    let tcti: String

    /// Starts it and waits (10 s at most) for its sockets.
    init(in directory: String) throws(KeychainError) {
        if let reason = SimulatedTPM.unavailableReason { throw KeychainError(SecStatus.notAvailable, reason) }
        let state = directory + "/swtpm"
        guard mkdir(state, 0o700) == 0 else {
            throw KeychainError(SecStatus.io, "cannot make \(state): \(String(cString: strerror(errno)))")
        }
        let socket = state + "/tpm.sock"
        do {
            pid = try ChildProcess.spawn(
                SimulatedTPM.executable,
                [
                    "socket", "--tpm2", "--tpmstate", "dir=\(state)", "--server", "type=unixio,path=\(socket)",
                    "--ctrl", "type=unixio,path=\(socket).ctrl", "--flags", "not-need-init,startup-clear",
                ])
        } catch {
            throw KeychainError(SecStatus.notAvailable, "cannot start \(SimulatedTPM.executable): \(error)")
        }
        tcti = "swtpm:path=\(socket)"
        let deadline = Date().addingTimeInterval(10)
        while access(socket, F_OK) != 0 || access(socket + ".ctrl", F_OK) != 0 {
            var status: Int32 = 0
            let exited = waitpid(pid, &status, WNOHANG) == pid
            if exited || Date() >= deadline {
                if !exited { stop() }
                throw KeychainError(SecStatus.notAvailable, "swtpm did not start in \(state)")
            }
            usleep(5_000)
        }
    }

    func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
