import Foundation

/// The built `strata` executable, beside the test bundle in the build folder (shared by the tool's tests and
/// the PostgreSQL ones).
public let strataExecutable: URL = {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("strata").path) {
        folder.deleteLastPathComponent()
    }
    return folder.appendingPathComponent("strata")
}()

/// What a run of `strata` printed and how it ended.
public struct Run: Sendable {
    public let status: Int32
    public let output: String
    public let error: String
}

/// Runs `strata` with `arguments` (in `folder`, else the current one) and waits for it.
public func strata(_ arguments: [String], in folder: URL? = nil) throws -> Run {
    let process = Process()
    process.executableURL = strataExecutable
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = folder }
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), error: String(decoding: err, as: UTF8.self))
}
