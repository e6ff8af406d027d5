// swift-tools-version:6.0
// ObjectGraph's benchmarks: every workload through ObjectGraph's SQLite store, the raw SQLite C API
// issuing the same SQL, and GRDB. A package of its own so that GRDB never enters the main build.
import PackageDescription

let package = Package(
    name: "ObjectGraphBenchmarks",
    dependencies: [
        .package(name: "ObjectGraph", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // libxml2 for `--feed`'s raw variant (the main package's own module is not a product).
        .systemLibrary(
            name: "CLibXML2Raw",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .executableTarget(
            name: "objectgraph-benchmarks",
            dependencies: [
                .product(name: "ObjectGraph", package: "ObjectGraph"),
                .product(name: "FeedImport", package: "ObjectGraph"),
                "CLibXML2Raw",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/ObjectGraphBenchmarks"
        ),
    ],
    swiftLanguageModes: [.v6]
)
