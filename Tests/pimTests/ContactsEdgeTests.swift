// `pim contacts` at its edges, against pim-contacts(1), pim(1) and --help, run end to end on the
// built binary (PimRun's helper): tables and sorting of any script, the editor form (notes of
// several lines, reopening with what was typed), organizations, the default store under $HOME,
// groups named by number, labelled values, and search ignoring case and accents.
import Foundation
import XCTest

final class ContactsEdgeTests: PimTestCase {
    // MARK: Helpers

    /// `pim contacts show <reference> --json` as an object.
    func contact(_ reference: String) throws -> [String: Any] {
        let run = try pim("contacts", "show", reference, "--json")
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(run.json() as? [String: Any])
    }

    // MARK: Tables

    /// pim(1)/Table.swift: list prints "an aligned table ... each column as wide as its widest
    /// cell". A cell must never lose characters: names with an emoji (two UTF-16 units), a ZWJ
    /// family emoji or a decomposed accent (e + U+0301) were cut because the column width counts
    /// characters while `padding(toLength:)` counts UTF-16 units, which truncates ("Ann 😀" became
    /// "Ann \u{FFFD}", "José Ruiz" became "José Rui", "👨‍👩‍👧 Family" became "👨‍👩‍👧").
    func testListTableNeverCutsNames() throws {
        for name in ["Ann 😀", "Jose\u{301} Ruiz", "👨‍👩‍👧 Family"] {
            let added = try pim("contacts", "add", name, "--email", "x@example.org")
            XCTAssertEqual(added.status, 0, added.stderr)
            let run = try pim("contacts", "list", "--fields", "name,emails")
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertFalse(run.stdout.contains("\u{FFFD}"), run.stdout)
            XCTAssertTrue(run.stdout.contains(name + "  "), "\(name) was cut in:\n\(run.stdout)")
            XCTAssertEqual(try pim("contacts", "delete", "1", "--yes").status, 0)
        }
    }

    /// pim(1)/Table.swift: "an aligned table ... each column as wide as its widest cell". A CJK
    /// character takes two terminal columns, so 王小明 is six columns wide; the EMAILS column must
    /// start at the same terminal column on every line (it started three columns too far right).
    func testListTableAlignsWideCharacters() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--email", "a@x.org").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "王小明", "--email", "w@x.cn").status, 0)
        let run = try pim("contacts", "list", "--fields", "name,emails")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "NAME     EMAILS\nAnn Lee  a@x.org\n王小明   w@x.cn\n")
    }

    // MARK: Sorting

    /// pim-contacts(1) list: "Contacts by name" (--help: "List contacts by name"). An address book
    /// lists names alphabetically: "ann lee" before "Bob Ray", "Émile" among the Es. They were
    /// ordered by code point: every capital before every lower-case letter, accented initials
    /// after Z ("Bob Ray, Zoe Ng, ann lee, Émile Zola").
    func testListSortsByNameAlphabetically() throws {
        for name in ["Zoe Ng", "ann lee", "Émile Zola", "Bob Ray"] {
            XCTAssertEqual(try pim("contacts", "add", name).status, 0)
        }
        let run = try pim("contacts", "list", "--fields", "name")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "NAME\nann lee\nBob Ray\nÉmile Zola\nZoe Ng\n")
    }

    // MARK: Editing in $EDITOR

    /// pim-contacts(1) edit: "Without flags, opens the editor as pim-tasks(1) describes" — a
    /// form of all fields. A contact whose notes have two lines could never be edited that way:
    /// the second line of the notes is read as a line of the form ("line 30: expected \"key:
    /// value\", got \"Likes tea\""), and the form reopens with the same error for ever (until the
    /// form is emptied, which cancels: exit 1). With notes such as "Kids: 2" or "name: X" the
    /// second line is an unknown field or silently sets another field; "# ..." drops it.
    func testEditorKeepsMultiLineNotes() throws {
        let notes = "Met at the conference\nLikes tea"
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--nickname", "Annie", "--notes", notes).status, 0)
        let script = try editor(["sed -i 's/^nickname:.*/nickname: Nan/' \"$1\""])
        let run = try pim("contacts", "edit", "1", environment: ["EDITOR": script])
        XCTAssertEqual(run.status, 0, run.stderr)
        let edited = try contact("1")
        XCTAssertEqual(edited["nickname"] as? String, "Nan")
        XCTAssertEqual(edited["notes"] as? String, notes)
    }

    /// pim-tasks(1) (which pim-contacts(1) edit refers to): "invalid input reopens the form with
    /// the error at its top". The reopened form must keep what the user typed: here the user
    /// changed the nickname and mistyped the birthday, then fixed only the birthday. The form
    /// came back with the stored values (nickname: Annie), so fixing the birthday saved it and
    /// silently dropped the nickname change.
    func testEditorReopensWithTheUsersChanges() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--nickname", "Annie", "--birthday", "1990-04-01").status, 0)
        let script = try editor([
            "sed -i -e 's/^nickname:.*/nickname: Nan/' -e 's/^birthday:.*/birthday: someday/' \"$1\"",
            "sed -i 's/^birthday:.*/birthday: 1990-04-02/' \"$1\"",
        ])
        let run = try pim("contacts", "edit", "1", environment: ["EDITOR": script])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reopened = try String(contentsOf: folder.appendingPathComponent("form-2.txt"), encoding: .utf8)
        XCTAssertTrue(reopened.contains("# ERROR: "), reopened)
        XCTAssertTrue(reopened.contains("nickname: Nan"), "the reopened form lost the user's change:\n\(reopened)")
        let edited = try contact("1")
        XCTAssertEqual(edited["birthday"] as? String, "1990-04-02")
        XCTAssertEqual(edited["nickname"] as? String, "Nan", "the nickname typed before the error was dropped")
    }

    // MARK: Organizations

    /// pim-contacts(1): "A contact is a person (name parts, nickname, birthday, organization, job
    /// title) or an organization"; --help: "--nickname A person's nickname", "--birthday A
    /// person's birthday". `edit` refuses these for an organization (exit 2, "organizations have
    /// no field \"birthday\""), but `add --kind organization` silently threw them away and
    /// exited 0. Bad input must be refused with exit 2 and store nothing.
    func testAddingAnOrganizationRefusesPersonOnlyFields() throws {
        let run = try pim("contacts", "add", "Acme", "--kind", "organization", "--birthday", "2000-01-01", "--nickname", "AC")
        XCTAssertEqual(run.status, 2, "stdout: \(run.stdout)")
        XCTAssertTrue(run.stderr.contains("birthday") || run.stderr.contains("nickname"), run.stderr)
        XCTAssertEqual(try pim("contacts", "list").status, 1, "the refused add stored a contact")
    }

    /// A phone entry with no number (`mobile:`) is refused naming what was typed (exit 2), on
    /// add and edit. It failed validation deep in the save (exit 7), naming an internal object.
    func testAPhoneWithoutANumberIsRefusedAsTyped() throws {
        let run = try pim("contacts", "add", "Ann", "--phone", "mobile:")
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertTrue(run.stderr.contains("\"mobile:\""), run.stderr)
        XCTAssertEqual(try pim("contacts", "list").status, 1)
        XCTAssertEqual(try pim("contacts", "add", "Ann", "--phone", "mobile:+1 555 0100").status, 0)
        let edit = try pim("contacts", "edit", "Ann", "--phones", "work:")
        XCTAssertEqual(edit.status, 2, edit.stderr)
        XCTAssertTrue(edit.stderr.contains("\"work:\""), edit.stderr)
        XCTAssertEqual((try contact("Ann")["phones"] as? [Any])?.count, 1)
    }

    // MARK: Store location

    /// pim(1) ENVIRONMENT/FILES: without --store and $PIM_STORE the store is
    /// $XDG_DATA_HOME/pim/pim.sqlite, else ~/.local/share/pim/pim.sqlite; the XDG base
    /// directory spec says that an empty XDG_DATA_HOME means "$HOME/.local/share". pim ignored
    /// $HOME and wrote under the home directory of the passwd entry (here /root), outside the
    /// test's folder — PimRun's promise that "no run can touch the user's own store" relies on it.
    /// (`--store ~/x` is expanded from the same wrong home.)
    func testDefaultStoreIsUnderHOME() throws {
        // If pim uses the passwd home, it writes there: only run when that leaves no trace.
        let passwdHome = try XCTUnwrap(getpwuid(getuid())).pointee.pw_dir.map { String(cString: $0) } ?? ""
        let stray = URL(fileURLWithPath: passwdHome).appendingPathComponent(".local/share/pim")
        guard !passwdHome.isEmpty, !FileManager.default.fileExists(atPath: stray.path) else {
            throw XCTSkip("\(stray.path) exists; not risking the user's store")
        }
        defer { try? FileManager.default.removeItem(at: stray) }
        let run = try pim("contacts", "add", "Ann", useStoreOption: false, environment: ["XDG_DATA_HOME": ""])
        XCTAssertEqual(run.status, 0, run.stderr)
        let expected = folder.appendingPathComponent(".local/share/pim/pim.sqlite")
        XCTAssertTrue(FileManager.default.fileExists(atPath: expected.path), "no store at $HOME/.local/share/pim/pim.sqlite")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stray.appendingPathComponent("pim.sqlite").path),
                       "pim wrote its store under the passwd home instead of $HOME")
    }

    // MARK: Groups

    /// pim(1) NAMING RECORDS: "A record is named by its short number ... for contacts, events,
    /// tasks and groups"; `group members 1` and `list --group 1` take group 1 so. `group add 1
    /// bob` instead made a second group called "1", which `group members 1` then does not show
    /// (it shows group 1, Family, without Bob).
    func testGroupAddNamesAnExistingGroupByNumber() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Bob").status, 0)
        XCTAssertEqual(try pim("contacts", "group", "add", "Family", "ann").status, 0)
        let run = try pim("contacts", "group", "add", "1", "bob")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try pim("contacts", "group", "list", "--fields", "number,name,members").stdout, "#  NAME    MEMBERS\n1  Family  Ann, Bob\n")
        XCTAssertEqual(try pim("contacts", "group", "members", "1", "--fields", "name").stdout, "NAME\nAnn\nBob\n")
    }

    // MARK: Guards (passing)

    /// pim-contacts(1): emails, phones and addresses are "ordered, labelled"; pim(1): undo
    /// "reverts the last whole command" and redo replays it. Order and labels of several values
    /// survive replacing some of them, deleting the contact, and undo/redo of both.
    func testSeveralLabelledValuesKeepTheirOrderThroughEditDeleteAndUndo() throws {
        XCTAssertEqual(try pim("contacts", "add", "Ann", "Lee", "--email", "a@x.org", "--email", "work:b@x.org", "--email", "c@x.org",
                               "--phone", "mobile:+44 7700 900123", "--phone", "555-0100", "--phone", "home:030 1234").status, 0)
        let original = "EMAILS                            PHONES\n"
            + "a@x.org, b@x.org (work), c@x.org  +44 7700 900123 (mobile), 555-0100, 030 1234 (home)\n"
        func values() throws -> String { try pim("contacts", "list", "--fields", "emails,phones").stdout }
        XCTAssertEqual(try values(), original)
        XCTAssertEqual(try pim("contacts", "edit", "ann", "--emails", "c@x.org, work:b@x.org").status, 0)
        XCTAssertEqual(try pim("contacts", "list", "--fields", "emails").stdout, "EMAILS\nc@x.org, b@x.org (work)\n")
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try values(), original)
        XCTAssertEqual(try pim("contacts", "delete", "ann", "--yes").status, 0)
        XCTAssertEqual(try pim("contacts", "list").status, 1)
        XCTAssertEqual(try pim("undo").status, 0)
        XCTAssertEqual(try values(), original)
        XCTAssertEqual(try pim("redo").status, 0)
        XCTAssertEqual(try pim("contacts", "list").status, 1)
    }

    /// pim-tasks(1)/RecordSearch: search ignores case and accents; pim(1): a name matches by a
    /// unique part, "an exact match wins". Both must hold for non-ASCII names, precomposed or
    /// decomposed (as macOS and some keyboards produce them), in emails and organizations too.
    func testSearchAndNamingIgnoreCaseAndAccentsInAnyNormalization() throws {
        XCTAssertEqual(try pim("contacts", "add", "Zoë Müller", "--email", "Zoe@Example.ORG", "--org", "Äpfel GmbH").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Rene\u{301} Fa\u{308}rber").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Émile").status, 0)
        XCTAssertEqual(try pim("contacts", "add", "Émile Zola").status, 0)
        for (word, name) in [("MULLER", "Zoë Müller"), ("apfel", "Zoë Müller"), ("example.org", "Zoë Müller"),
                             ("René", "Rene\u{301} Fa\u{308}rber"), ("farber", "Rene\u{301} Fa\u{308}rber")] {
            let run = try pim("contacts", "search", word, "--fields", "name")
            XCTAssertEqual(run.status, 0, "\(word): \(run.stderr)")
            XCTAssertEqual(run.stdout, "NAME\n\(name)\n", word)
        }
        XCTAssertEqual(try contact("ÉMILE")["number"] as? Int, 3, "the exact match, ignoring case, wins")
        XCTAssertEqual(try contact("E\u{301}mile zola")["number"] as? Int, 4)
        XCTAssertEqual(try pim("contacts", "show", "emile").status, 4, "two names contain emile")
    }
}
