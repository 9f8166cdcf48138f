// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15), .iOS(.v18)],   // the Synchronization module (Mutex, Atomic)
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .executable(name: "strata-demo", targets: ["StrataDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "Strata",
            dependencies: ["CSQLite", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(name: "StrataDemo", dependencies: ["Strata"]),
        .testTarget(name: "StrataTests", dependencies: ["Strata"]),
    ],
    swiftLanguageModes: [.v6]
)
