// `pim tasks projects` and `pim tasks tags`, end to end on the built binary: Taskwarrior's
// project tree and tag report, each count the number of tasks `tasks list` with the same filter
// lists; projects and tags told apart ignoring case; JSON; exit 1 when nothing matches.
import Foundation
import XCTest

final class TasksSummaryTests: PimTestCase {
    private func addTasks() throws {
        for arguments in [
            ["Dig", "--project", "home.garden", "--tag", "Outside"],
            ["Paint", "--project", "Home", "--tag", "outside", "--tag", "paint"],
            ["Taxes", "--project", "home", "--due", "2026-12-01"],
            ["Report", "--project", "work.q4.draft"],
            ["Misc"],
            ["Old", "--project", "attic", "--tag", "paint"],
        ] {
            let run = try pim(arguments: ["tasks", "add"] + arguments)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        XCTAssertEqual(try pim("tasks", "done", "Old").status, 0)
    }

    /// The numbers of the tasks `tasks list` prints with `filter`.
    private func listed(_ filter: [String]) throws -> Int {
        let run = try pim(arguments: ["tasks", "list", "--json"] + filter)
        if run.status == 1 { return 0 }
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [Any]).count
    }

    func testProjectsAreATreeWithTheTasksOfEachProjectAndItsSubProjects() throws {
        try addTasks()
        let run = try pim("tasks", "projects")
        XCTAssertEqual(run.status, 0, run.stderr)
        // home is spelled as two of its three tasks spell it; work is there only through work.q4.
        XCTAssertEqual(run.stdout, """
            Project    Tasks
            (none)     1
            home       3
              garden   1
            work       1
              q4       1
                draft  1

            5 projects (5 tasks)

            """)
        // The done task counts only when done tasks are asked for.
        let all = try pim("tasks", "projects", "--all")
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertTrue(all.stdout.contains("\nattic      1\n"), all.stdout)
        XCTAssertTrue(all.stdout.hasSuffix("\n6 projects (6 tasks)\n"), all.stdout)
    }

    func testEachCountIsWhatTasksListListsWithTheSameFilter() throws {
        try addTasks()
        for filter in [[], ["--all"], ["--status", "done"], ["--due-before", "2026-12-02"], ["--where", "title BEGINSWITH 'P'"]] {
            let run = try pim(arguments: ["tasks", "projects", "--json"] + filter)
            XCTAssertEqual(run.status, 0, "\(filter): \(run.stderr)")
            let projects = try XCTUnwrap(run.json() as? [[String: Any]])
            XCTAssertFalse(projects.isEmpty, "\(filter)")
            for project in projects {
                let name = project["project"] as? String ?? ""
                XCTAssertEqual(project["tasks"] as? Int, try listed(filter + ["--project", name]), "\(filter) \(name)")
            }
            let tags = try pim(arguments: ["tasks", "tags", "--json"] + filter)
            guard tags.status == 0 else {
                XCTAssertEqual(tags.status, 1, "\(filter): \(tags.stderr)")
                continue
            }
            for tag in try XCTUnwrap(tags.json() as? [[String: Any]]) {
                let name = try XCTUnwrap(tag["tag"] as? String)
                XCTAssertEqual(tag["tasks"] as? Int, try listed(filter + ["--tag", name]), "\(filter) \(name)")
            }
        }
    }

    func testJSONGivesEachProjectsPathAndItsOwnTasks() throws {
        try addTasks()
        let run = try pim("tasks", "projects", "--json", "--project", "work")
        XCTAssertEqual(run.status, 0, run.stderr)
        let projects = try XCTUnwrap(run.json() as? [[String: Any]])
        XCTAssertEqual(projects.map { $0["project"] as? String }, ["work", "work.q4", "work.q4.draft"])
        XCTAssertEqual(projects.map { $0["own"] as? Int }, [0, 0, 1])
        XCTAssertEqual(projects.map { $0["tasks"] as? Int }, [1, 1, 1])
        let none = try pim("tasks", "projects", "--json", "--project", "")
        XCTAssertEqual(none.status, 0, none.stderr)
        let unfiled = try XCTUnwrap(none.json() as? [[String: Any]])
        XCTAssertEqual(unfiled.count, 1)
        XCTAssertTrue(unfiled[0]["project"] is NSNull, "\(unfiled)")
        XCTAssertEqual(unfiled[0]["tasks"] as? Int, 1)
    }

    func testTagsAreCountedOncePerTaskWhateverTheirCase() throws {
        try addTasks()
        let run = try pim("tasks", "tags")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, """
            Tag      Tasks
            Outside  2
            paint    1

            2 tags

            """)
        let all = try pim("tasks", "tags", "--all", "--json")
        XCTAssertEqual(all.status, 0, all.stderr)
        let tags = try XCTUnwrap(all.json() as? [[String: Any]])
        XCTAssertEqual(tags.map { $0["tag"] as? String }, ["Outside", "paint"])
        XCTAssertEqual(tags.map { $0["tasks"] as? Int }, [2, 2])
    }

    func testNothingMatchingExitsOne() throws {
        let empty = try pim("tasks", "projects")
        XCTAssertEqual(empty.status, 1)
        XCTAssertEqual(empty.stdout, "")
        XCTAssertTrue(empty.stderr.contains("no tasks match"), empty.stderr)
        XCTAssertEqual(try pim("tasks", "add", "Untagged").status, 0)
        let untagged = try pim("tasks", "tags")
        XCTAssertEqual(untagged.status, 1)
        XCTAssertTrue(untagged.stderr.contains("no matching task has a tag"), untagged.stderr)
        let json = try pim("tasks", "tags", "--json")
        XCTAssertEqual(json.status, 1)
        XCTAssertEqual(json.stdout, "[\n\n]\n")
        let bad = try pim("tasks", "projects", "--where", "title ==")
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--where"), bad.stderr)
    }
}
