// Issue 36, point 9: the README's pool shapes in top-level code (this file), in an async function and in a
// synchronous one. Each line printed says whether the main actor ran other work while the closure ran: a
// task queued on the main actor before the call opens a gate the closure waits for (2 s at most). The
// async calls suspend the caller, so it can; the blocking ones hold the main thread, so it cannot.
// Review19TopLevelTests runs this executable and reads the lines.
import Dispatch
import Strata

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "toplevel.sqlite"
let pool = try DatabasePool(path: path, readers: 2)

/// A gate a main-actor task opens: `passed()` (in a pool closure) says whether it opened within 2 s.
final class MainActorGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    init() {
        Task { @MainActor [semaphore] in semaphore.signal() }
    }
    func passed() -> Bool { semaphore.wait(timeout: .now() + 2) == .success }
}

// Top-level code: `try await pool.write { }` must be the async write (it was the blocking one).
let writeGate = MainActorGate()
let wrote = try await pool.write { db in
    try db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)")
    return writeGate.passed()
}
print("top-level write let the main actor run: \(wrote)")
let readGate = MainActorGate()
let read = try await pool.read { db in readGate.passed() }
print("top-level read let the main actor run: \(read)")

func asyncFunction() async throws -> Bool {
    let gate = MainActorGate()
    return try await pool.write { db in gate.passed() }
}
print("async function write let the main actor run: \(try await asyncFunction())")

func synchronousFunction() throws -> Bool {
    let gate = MainActorGate()
    return try pool.blocking.write { db in gate.passed() }
}
print("synchronous function blocking write let the main actor run: \(try synchronousFunction())")
try await pool.close()
