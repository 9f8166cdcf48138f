// The command line (ArgumentParser) and what a run does: the workloads' table, then optionally the
// instruction counts (--callgrind) and the JSON file; or the scale run, the pool run, the query forms.
import ArgumentParser
import Foundation

struct BenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-benchmarks",
        abstract: "Strata beside raw SQLite C and GRDB, in one run: interleaved rounds, every result verified.",
        discussion: """
            Workloads: \(BenchmarkCommand.workloadKeys.joined(separator: ", ")).
            Contenders: \(ContenderID.allCases.map(\.rawValue).joined(separator: ", ")) (strata also selects \
            strata-lazy and strata-prefetch).
            """)

    static let workloadKeys = ["fetch", "insert", "update", "release", "fetch-composite", "fetch-composite-refs", "fetch-text-key", "held-references", "for-keys", "first-use", "first-use-models", "cold-first-use",
                               "schema-add-column", "relationships"]

    @Option(help: "Measured rounds after one discarded warm-up round.")
    var rounds: Int?

    @ArgumentParser.Flag(help: "2 measured rounds (a smoke run; same sizes).")
    var quick = false

    @Option(help: "Also write every sample and statistic as JSON to this path.")
    var json: String?

    @Option(help: "Workloads to run, comma-separated (default: all).")
    var only: String?

    @Option(help: "Contenders to run, comma-separated (default: all).")
    var contenders: String?

    @Option(help: "Model types of the first-use-models workload (1 to 1,000; default 1,000).")
    var models = 1_000

    @Option(help: "Distinct departments of the relationships workload.")
    var departments = 1_000

    @Option(help: "Rows of the fetch, insert, update, release and key-shape workloads (default 200,000 / 50,000 / 50,000 / 200,000 / 200,000).")
    var rows: Int?

    @ArgumentParser.Flag(help: """
        Then count each contender's instructions with valgrind's callgrind, over the whole process: a run with \
        raw alone, one with the contender alone, one with both (so templates cancel); adds instructions and \
        instructionsRatio to the table and the JSON, and the timed parts' own instructions from the runs alone \
        (timedInstructions, timedInstructionsRatio; "timed x raw"). Strata's contenders only, unless \
        --callgrind-contenders.
        """)
    var callgrind = false

    @Option(help: "Contenders counted by --callgrind, comma-separated (raw-classes: for Strata's ratios to it).")
    var callgrindContenders = "strata,raw-classes"

    @Option(help: "With --scale --callgrind: count the scales up to this many rows (default 100,000; 1,000,000 takes most of an hour).")
    var callgrindUpTo = 100_000

    @ArgumentParser.Flag(help: """
        Instead: fetch, insert, update and release at 10,000, 100,000 and 1,000,000 rows, and the drift of \
        each ratio (raw and Strata unless --contenders; 3 rounds unless --rounds).
        """)
    var scale = false

    @ArgumentParser.Flag(help: "Instead: first(where:) by a string clause and by a key-path condition.")
    var queries = false

    @ArgumentParser.Flag(help: "Instead: async pool read latency (idle, under slow writes) and throughput, Strata's DatabasePool beside GRDB's.")
    var pool = false

    @ArgumentParser.Flag(help: .hidden)
    var counting = false

    @Option(help: .hidden)
    var coldChild: String?

    @Option(help: .hidden)
    var coldPath: String?

    func validate() throws {
        if let rounds, rounds < 1 { throw ValidationError("--rounds needs a positive number") }
        if departments < 1 { throw ValidationError("--departments needs a positive number") }
        if models < 1 || models > 1_000 { throw ValidationError("--models needs a number from 1 to 1,000") }
        if let rows, rows < 1 { throw ValidationError("--rows needs a positive number") }
        if let only {
            let unknown = Set(list(only)).subtracting(Self.workloadKeys)
            if !unknown.isEmpty { throw ValidationError("unknown workloads: \(unknown.sorted().joined(separator: ", "))") }
        }
    }

    private func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    var options: Options {
        var options = Options()
        options.rounds = rounds ?? (quick ? 2 : scale ? 3 : 10)
        options.jsonPath = json
        options.onlyWorkloads = only.map { Set(list($0)) }
        options.onlyContenders = contenders.map { Set(list($0)) }
        options.relationshipDepartments = departments
        if let rows {
            options.fetchRows = rows
            options.insertRows = rows
            options.updateRows = rows
        }
        return options
    }

    func run() throws {
        RelationshipTables.departments = departments
        ManyModelTables.count = models
        countingInstructions = counting
        if let coldChild {
            // A child of the cold-first-use workload: one first use in this fresh process; the time on stdout.
            guard let contender = ContenderID(rawValue: coldChild), let coldPath else {
                throw ValidationError("--cold-child needs a contender and --cold-path")
            }
            try ColdFirstUse.child(contender, path: coldPath)
            return
        }
        do {
            try runBenchmarks()
        } catch {
            log("strata-benchmarks: FAILED: \(error)")
            throw ExitCode.failure
        }
    }

    private func runBenchmarks() throws {
        var options = self.options
        let machine = machineDescription()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("strata-benchmarks: SQLite \(SQLiteC.version), \(machine), \(cores) cores, "
              + "1 warm-up + \(options.rounds) measured rounds")
        #if !STRATA_MODELS
        print("note: the Strata contender is off (build with strataModels = true in Benchmarks/Package.swift)")
        #endif
        #if STRATA_MODELS
        if queries {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-benchmarks-queries-\(ProcessInfo.processInfo.processIdentifier)")
            defer { try? FileManager.default.removeItem(at: folder) }
            try QueryFormsWorkload.run(folder: folder, rounds: options.rounds)
            return
        }
        if pool {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-benchmarks-pool-\(ProcessInfo.processInfo.processIdentifier)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let figures = try runAsync { try await PoolLatencyWorkload.run(folder: folder) }
            PoolLatencyWorkload.printReport(figures)
            return
        }
        #endif
        let start = ContinuousClock.now
        var reports: [WorkloadReport]
        if scale {
            options.onlyWorkloads = options.onlyWorkloads ?? ["fetch", "insert", "update", "release"]
            options.onlyContenders = options.onlyContenders ?? ["raw", "strata"]
            reports = try ScaleRun.run(options, callgrind: callgrind
                ? (Set(list(callgrindContenders)), callgrindUpTo, departments, models) : nil)
        } else {
            let workloads = makeWorkloads(options)
            let runner = try Runner(options: options)
            reports = makeReports(workloads, try runner.run(workloads))
            reports = ColdFirstUse.annotate(reports)
            if callgrind {
                reports = try Callgrind.count(reports, options: options, rowsArgument: rows, departments: departments, models: models,
                                              contenders: Set(list(callgrindContenders)))
            }
            reports = addRowidFetchRatios(reports)
            reports = ManyModelTables.perModelNotes(reports)
        }
        for report in reports { printTable(report, rounds: options.rounds) }
        print("\ntotal \(format((ContinuousClock.now - start).milliseconds / 1000)) s; every result verified in every round")

        if let jsonPath = options.jsonPath {
            let report = Report(
                date: ISO8601DateFormatter().string(from: Date()), arguments: CommandLine.arguments, machine: machine, cores: cores,
                os: ProcessInfo.processInfo.operatingSystemVersionString, sqliteVersion: SQLiteC.version,
                strataModels: strataModels, warmupRounds: 1, rounds: options.rounds, workloads: reports)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: jsonPath))
            print("wrote \(jsonPath)")
        }
    }
}

/// This executable's path, for the child processes of `cold-first-use` and `--callgrind`.
func executablePath() -> String {
    #if os(Linux)
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
    #endif
    return Bundle.main.executablePath ?? CommandLine.arguments[0]
}

/// Runs `arguments[0]` with the rest as its arguments; returns its standard output, or throws with its
/// standard error when it fails.
func runProcess(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    let output = Pipe()
    process.standardOutput = output
    // Standard error goes to a file, so that a chatty child never blocks on a full pipe.
    let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("strata-benchmarks-child-\(UUID().uuidString).log").path
    guard FileManager.default.createFile(atPath: errorPath, contents: nil), let errorFile = FileHandle(forWritingAtPath: errorPath) else {
        throw Verification.failure("cannot create \(errorPath)")
    }
    defer { try? FileManager.default.removeItem(atPath: errorPath) }
    process.standardError = errorFile
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try? errorFile.close()
    let errorData = FileManager.default.contents(atPath: errorPath) ?? Data()
    guard process.terminationStatus == 0 else {
        throw Verification.failure("\(arguments.joined(separator: " ")) exited with \(process.terminationStatus): "
                                   + String(decoding: errorData.suffix(2_000), as: UTF8.self))
    }
    return String(decoding: data, as: UTF8.self)
}
