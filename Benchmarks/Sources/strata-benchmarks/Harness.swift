// The harness: workloads x contenders, interleaved rounds, statistics, the table and the JSON file.
import Foundation

// MARK: - Expected values and verification

/// Row r (0-based) of the item table has id r+1 and column c (i0...i9) holds 10*r + c, so that a
/// column mix-up or an off-by-one row is caught. The update workload adds `updateDelta` to i5.
enum Expected {
    static let updatedColumn = 5
    static let updateDelta: Int64 = 1_000_000_000

    static func value(row: Int, column: Int, updated: Bool = false) -> Int64 {
        Int64(10 * row + column) + (updated && column == updatedColumn ? updateDelta : 0)
    }
}

/// What the harness reads from each contender's objects to verify them (outside the timed part).
/// What every contender's item exposes so results can be verified: its id and ten columns.
protocol CheckableItem {
    var checkID: Int64 { get }
    var i0: Int64 { get }
    var i1: Int64 { get }
    var i2: Int64 { get }
    var i3: Int64 { get }
    var i4: Int64 { get }
    var i5: Int64 { get }
    var i6: Int64 { get }
    var i7: Int64 { get }
    var i8: Int64 { get }
    var i9: Int64 { get }
}

extension CheckableItem {
    /// Column `column` (0...9) of the item.
    func checkColumn(_ column: Int) -> Int64 {
        switch column {
        case 0: i0
        case 1: i1
        case 2: i2
        case 3: i3
        case 4: i4
        case 5: i5
        case 6: i6
        case 7: i7
        case 8: i8
        default: i9
        }
    }
}

struct VerificationFailure: Error, CustomStringConvertible {
    let description: String
}

enum Verification {
    static func failure(_ message: String) -> VerificationFailure {
        VerificationFailure(description: message)
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw failure(message()) }
    }

    /// Checks that `items` are exactly the rows 1...count, each with its expected values.
    /// `idsInOrder`: item k must have id k+1 (inserted objects, read-back in id order).
    static func items<C: Collection>(_ items: C, count: Int, updated: Bool = false, idsInOrder: Bool = false,
                                     _ what: String) throws where C.Element: CheckableItem {
        try check(items.count == count, "\(what): \(items.count) items, expected \(count)")
        var seen = [Bool](repeating: false, count: count + 1)
        for (index, item) in items.enumerated() {
            let id = item.checkID
            try check(id >= 1 && id <= Int64(count), "\(what): item \(index) has id \(id), expected 1...\(count)")
            try check(!seen[Int(id)], "\(what): id \(id) appears twice")
            seen[Int(id)] = true
            if idsInOrder {
                try check(id == Int64(index + 1), "\(what): item \(index) has id \(id), expected \(index + 1)")
            }
            let row = Int(id - 1)
            for column in 0..<10 {
                let value = item.checkColumn(column)
                let expected = Expected.value(row: row, column: column, updated: updated)
                try check(value == expected, "\(what): id \(id) column i\(column) holds \(value), expected \(expected)")
            }
        }
    }

    /// Reads the item table back with the C API and checks every row.
    static func itemTable(at path: String, count: Int, updated: Bool = false, _ what: String) throws {
        try items(try ItemTable.readAll(at: path), count: count, updated: updated, idsInOrder: true,
                  "\(what) (database read back)")
    }

    /// Checks that a connection runs without a connection mutex, as the fair setup requires.
    static func noMutex(_ handle: OpaquePointer?, _ what: String) throws {
        guard let handle else { throw failure("\(what): no SQLite handle") }
        try check(SQLiteC.isNoMutex(handle), "\(what): the connection was opened with a mutex (not NOMUTEX)")
    }
}

/// A small deterministic generator (SplitMix64): the same keys in every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Timing

/// Runs `body` once and returns how long it took (ContinuousClock) and its result. Whatever the result
/// owns is released by the caller, after the clock has stopped.
@inline(never)
func measure<T>(_ body: () throws -> T) rethrows -> (Duration, T) {
    Callgrind.timedPartBegins()
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    let end = clock.now
    Callgrind.timedPartEnds()
    return (end - start, result)
}

/// A fetch's time with the release of what it fetched (objects are not free to let go of: a class
/// instance's deinit, an identity map's bookkeeping): the fetch is timed, the result verified untimed,
/// then its release is timed and added.
func measureFetch<T>(_ fetch: () throws -> [T], verify: ([T]) throws -> Void) throws -> Duration {
    var (duration, items) = try measure(fetch)
    try verify(items)
    Callgrind.timedPartBegins()
    let clock = ContinuousClock()
    let start = clock.now
    items = []
    let release = clock.now - start
    Callgrind.timedPartEnds()
    withExtendedLifetime(items) {}
    return duration + release
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e3 + Double(attoseconds) * 1e-15
    }
}

// MARK: - Workloads and contenders

enum ContenderID: String, CaseIterable, Sendable {
    case raw, rawClasses = "raw-classes", grdbRecord = "grdb-record", grdbCodable = "grdb-codable", grdbOptimized = "grdb-optimized", strata
    /// Strata's two ways of reading a relationship (the relationships workload).
    case strataLazy = "strata-lazy", strataPrefetch = "strata-prefetch"
    /// The same rows read from the to-many side: departments with their employees (`@Children`) prefetched.
    case strataChildren = "strata-children"

    var title: String {
        switch self {
        case .raw: "raw SQLite C"
        case .rawClasses: "raw C into classes"
        case .grdbRecord: "GRDB Record"
        case .grdbCodable: "GRDB Codable"
        case .grdbOptimized: "GRDB optimized"
        case .strata: "Strata"
        case .strataLazy: "Strata lazy"
        case .strataPrefetch: "Strata prefetch"
        case .strataChildren: "Strata to-many"
        }
    }

    /// Whether `--contenders` names this contender: by its own name, or `strata` for Strata's variants.
    func isSelected(by names: Set<String>) -> Bool {
        names.contains(rawValue) || (rawValue.hasPrefix("strata-") && names.contains("strata"))
    }
}

/// One run of one contender: the database (a copy of the workload's template in a fresh folder) and the
/// workload's size. The run opens the database itself, times its part, closes, and verifies.
struct Job {
    let path: String
    let rows: Int
}

struct Case {
    let contender: ContenderID
    let run: (Job) throws -> Duration
    /// The name in the table, when not the contender's title (e.g. "raw C JOIN").
    var name: String? = nil
}

struct Workload {
    let key: String
    let title: String
    let rows: Int
    /// Builds the database every run of this workload starts from (once, untimed).
    let makeTemplate: (_ path: String) throws -> Void
    var cases: [Case]
    /// Lines printed under the workload's table after the run (and written to the JSON).
    var notes: () -> [String] = { [] }
}

/// What a run does, from the command line (see `BenchmarkCommand`).
struct Options {
    var rounds = 10
    var jsonPath: String?
    var onlyWorkloads: Set<String>?
    var onlyContenders: Set<String>?
    var fetchRows = 200_000
    var insertRows = 50_000
    var updateRows = 50_000
    var relationshipOwners = 10_000
    var relationshipDepartments = 1_000
}

// MARK: - Running

struct Sample {
    var milliseconds: [Double] = []
}

final class Runner {
    let options: Options
    let root: URL
    private var counter = 0

    init(options: Options) throws {
        self.options = options
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-benchmarks-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// A new empty folder under the run's temporary root.
    func freshFolder() throws -> URL {
        counter += 1
        let folder = root.appendingPathComponent("run-\(counter)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs every workload: one warm-up round (discarded), then `rounds` measured rounds; in each round,
    /// each workload runs each of its contenders once, in order. Returns the samples per workload and case.
    func run(_ workloads: [Workload]) throws -> [[Sample]] {
        var templates: [String] = []
        for workload in workloads {
            let folder = try freshFolder()
            let path = folder.appendingPathComponent("template.sqlite").path
            // Set-up shared by every contender: timed for the log, not a timed part (see `Callgrind`).
            let templateStart = ContinuousClock.now
            try workload.makeTemplate(path)
            let duration = ContinuousClock.now - templateStart
            log("template for \(workload.key): \(format(duration.milliseconds)) ms")
            templates.append(path)
        }
        var samples = workloads.map { [Sample](repeating: Sample(), count: $0.cases.count) }
        for round in 0...options.rounds {
            let roundStart = ContinuousClock.now
            for (w, workload) in workloads.enumerated() {
                for (c, testCase) in workload.cases.enumerated() {
                    let folder = try freshFolder()
                    let path = folder.appendingPathComponent("bench.sqlite").path
                    try FileManager.default.copyItem(atPath: templates[w], toPath: path)
                    let duration: Duration
                    do {
                        duration = try testCase.run(Job(path: path, rows: workload.rows))
                    } catch {
                        throw VerificationFailure(description: """
                            \(workload.key) / \(testCase.contender.title), round \(round): \(error)
                            """)
                    }
                    try FileManager.default.removeItem(at: folder)
                    if round > 0 { samples[w][c].milliseconds.append(duration.milliseconds) }
                }
            }
            let elapsed = (ContinuousClock.now - roundStart).milliseconds / 1000
            log(round == 0 ? "warm-up round: \(format(elapsed)) s (discarded)"
                           : "round \(round)/\(options.rounds): \(format(elapsed)) s")
        }
        return samples
    }
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

func format(_ value: Double) -> String {
    String(format: value >= 100 ? "%.1f" : "%.2f", value)
}

// MARK: - Statistics and reports

struct Statistics: Codable {
    let contender: String
    let name: String
    let samplesMs: [Double]
    let minMs: Double
    let medianMs: Double
    let maxMs: Double
    /// This contender's median divided by raw SQLite's median in the same workload (nil without raw).
    let medianRatioToRaw: Double?
    /// Instructions of this contender's runs (one warm-up and one measured round) over the whole process,
    /// from callgrind (`--callgrind`): the run with raw minus the raw-only run.
    var instructions: Double?
    /// ``instructions`` divided by raw SQLite's, measured in the same pair of runs.
    var instructionsRatio: Double?
    /// Instructions of the timed parts only (both rounds), from the contender's run alone: what the
    /// workload's time measures, without the untimed setup (the fetch before an update, say).
    var timedInstructions: Double?
    /// ``timedInstructions`` divided by raw SQLite's.
    var timedInstructionsRatio: Double?
    /// This contender's median divided by the median of raw C into plain classes (`raw-classes`: the limit
    /// of any object mapper) in the same workload (nil without it).
    var medianRatioToRawClasses: Double?
    /// ``instructions`` divided by `raw-classes`' (with `--callgrind`, when both are counted).
    var instructionsRatioToRawClasses: Double?
    /// ``timedInstructions`` divided by `raw-classes`'.
    var timedInstructionsRatioToRawClasses: Double?
    /// For Strata in a key-shape workload (`fetch-composite`, ...): its median divided by Strata's in the
    /// `fetch` workload (the rowid model over the same values, same run).
    var medianRatioToRowidFetch: Double?
    /// ``instructions`` divided by Strata's in the `fetch` workload.
    var instructionsRatioToRowidFetch: Double?
    /// ``timedInstructions`` divided by Strata's in the `fetch` workload.
    var timedInstructionsRatioToRowidFetch: Double?

    init(contender: ContenderID, name: String? = nil, samples: [Double], rawMedian: Double?) {
        let sorted = samples.sorted()
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        self.contender = contender.rawValue
        self.name = name ?? contender.title
        samplesMs = samples
        minMs = sorted.first ?? 0
        medianMs = median
        maxMs = sorted.last ?? 0
        medianRatioToRaw = rawMedian.map { median / $0 }
    }
}

struct WorkloadReport: Codable {
    let workload: String
    let title: String
    let rows: Int
    var results: [Statistics]
    var notes: [String]
}

struct Report: Codable {
    let date: String
    let arguments: [String]
    let machine: String
    let cores: Int
    let os: String
    let sqliteVersion: String
    let strataModels: Bool
    let warmupRounds: Int
    let rounds: Int
    let workloads: [WorkloadReport]
}

func makeReports(_ workloads: [Workload], _ samples: [[Sample]]) -> [WorkloadReport] {
    zip(workloads, samples).map { workload, samples in
        let rawSamples = zip(workload.cases, samples).first { $0.0.contender == .raw }?.1
        let rawMedian = rawSamples.map { Statistics(contender: .raw, samples: $0.milliseconds, rawMedian: nil).medianMs }
        var results = zip(workload.cases, samples).map {
            Statistics(contender: $0.0.contender, name: $0.0.name, samples: $0.1.milliseconds, rawMedian: rawMedian)
        }
        if let classes = results.first(where: { $0.contender == ContenderID.rawClasses.rawValue })?.medianMs {
            for index in results.indices { results[index].medianRatioToRawClasses = results[index].medianMs / classes }
        }
        return WorkloadReport(workload: workload.key, title: workload.title, rows: workload.rows, results: results,
                              notes: workload.notes())
    }
}

func printTable(_ report: WorkloadReport, rounds: Int) {
    print("\n\(report.title)  [\(report.workload), \(rounds) rounds, ms]")
    // Beside raw C with structs, the ratios to raw C into plain classes where the workload has that contender.
    let classes = report.results.contains { $0.medianRatioToRawClasses != nil }
    let counted = report.results.contains { $0.instructions != nil }
    let classesCounted = report.results.contains { $0.instructionsRatioToRawClasses != nil }
    var timeColumns = ["min", "median", "max", "x raw"]
    if classes { timeColumns.append("x classes") }
    var countColumns: [String] = []
    if counted { countColumns += ["instr", "instr x raw", "timed x raw"] }
    if classesCounted { countColumns += ["instr x cls", "timed x cls"] }
    let name = "contender".padding(toLength: 20, withPad: " ", startingAt: 0)
    let timeHeader: String = timeColumns.map { $0.leftPadded(10) }.joined()
    let countHeader: String = countColumns.map { $0.leftPadded(12) }.joined()
    print("  " + name + timeHeader + countHeader)
    func ratio(_ value: Double?) -> String { value.map { String(format: "%.2fx", $0) } ?? "-" }
    for result in report.results {
        var times = [format(result.minMs), format(result.medianMs), format(result.maxMs), ratio(result.medianRatioToRaw)]
        if classes { times.append(ratio(result.medianRatioToRawClasses)) }
        let timeText: String = times.map { $0.leftPadded(10) }.joined()
        var line = "  " + result.name.padding(toLength: 20, withPad: " ", startingAt: 0) + timeText
        if counted {
            line += (result.instructions.map { String(format: "%.1fM", $0 / 1e6) } ?? "-").leftPadded(12)
                + ratio(result.instructionsRatio).leftPadded(12)
                + ratio(result.timedInstructionsRatio).leftPadded(12)
        }
        if classesCounted {
            line += ratio(result.instructionsRatioToRawClasses).leftPadded(12)
                + ratio(result.timedInstructionsRatioToRawClasses).leftPadded(12)
        }
        print(line)
    }
    for note in report.notes { print("  " + note) }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

func machineDescription() -> String {
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
        .flatMap { $0.split(separator: ":", maxSplits: 1).last }
        .map { $0.trimmingCharacters(in: .whitespaces) }
    return model ?? "unknown CPU"
}
