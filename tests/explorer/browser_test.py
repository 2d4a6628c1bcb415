"""The explorer page in a real browser (headless chromium through selenium):
load it, enter a FEN, check the value and the move list against the JSON API,
click the best move, check the new position and the marks on the board, go
Back, step the best line with the buttons and the arrow keys, flip the board,
read the legend, see that an error leaves nothing of the position before and
tells the visitor no path or command (those go to the server's log, where the
command suggested is run as it is), open the material's page, and save
screenshots. The API itself is checked against the brute-force solver by
explorer_tests; this checks that the page shows what the API answers.

    browser_test.py DTB WORK
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import WebDriverWait

dtb, work = sys.argv[1], sys.argv[2]
tables = os.path.join(work, "explorer-browser")
shutil.rmtree(tables, ignore_errors=True)
subprocess.run([dtb, "build", "--variant", "american", "--material", "KMvK", "--dir", tables, "--output", "quiet",
                "--rules"],
               check=True, stdout=subprocess.DEVNULL)

log = tempfile.TemporaryFile(mode="w+")  # the server's standard error: the operator's log
server = subprocess.Popen([dtb, "serve", "--dir", tables, "--port", "0"], stdout=subprocess.PIPE, stderr=log,
                          text=True)
driver = None
try:
    banner = server.stdout.readline()  # dtb serve: http://127.0.0.1:PORT/ (...)
    base = banner.split()[2]
    assert base.startswith("http://127.0.0.1:"), banner

    def api(fen, count=None, variant="american"):
        query = urllib.parse.urlencode({"variant": variant, "fen": fen, **({"count": count} if count is not None else {})})
        with urllib.request.urlopen(base + "api/probe?" + query) as r:
            return json.load(r)

    options = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,1000"]:
        options.add_argument(a)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    class Wait(WebDriverWait):
        """WebDriverWait that, on a timeout, says what the page showed then."""
        def until(self, condition, message=""):
            try:
                return super().until(condition, message)
            except TimeoutException:
                shown = driver.execute_script(
                    "return location.hash + '\\n' + document.body.innerText.slice(0, 2000) + '\\n' +"
                    " [...document.querySelectorAll('[id]')].filter(e => e.hidden).map(e => e.id).join(' ')")
                driver.save_screenshot(os.path.join(work, "explorer-timeout.png"))
                log.seek(0)
                raise AssertionError("the page did not change as expected; it showed (address, text, hidden):\n" +
                                     shown + "\nthe server's log:\n" + log.read()[-3000:]) from None
    wait = Wait(driver, 30)
    by_id = lambda name: driver.find_element(By.ID, name)

    def plies_text(value, plies):
        return "draw" if value == "draw" else f"{value} in {plies} {'ply' if plies == 1 else 'plies'}"

    def value_text(value, plies):
        """The value line: plies, and the moves of a game score (a win in 15 plies is the 8th move)."""
        if value == "draw" or plies == 0:
            return plies_text(value, plies)
        moves = (plies + 1) // 2
        return f"{plies_text(value, plies)} ({moves} {'move' if moves == 1 else 'moves'})"

    def ends(move):
        squares = re.split("[-x]", move)
        return squares[0], squares[-1]

    def check_shown(fen, last=None):
        """The page shows `fen`, its value and its moves as the API answers them, the best move as
        the arrow and `last` (a move's text) as the shaded squares."""
        expected = api(fen)
        side = "White" if expected["fen"][0] == "W" else "Black"
        wait.until(lambda d: by_id("fen").get_attribute("value") == expected["fen"])
        wait.until(lambda d: by_id("value").text ==
                   f"{side} to move: {value_text(expected['value'], expected['plies'])}")
        shown = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#moves li")]
        mover = {"win": "loss", "loss": "win", "draw": "draw"}
        wanted = [f"{m['move']}: " + plies_text(mover[m["value"]], None if m["plies"] is None else m["plies"] + 1)
                  for m in expected["moves"]]
        assert shown == wanted, (shown, wanted)
        # The board holds the position's pieces (its label is the FEN drawn).
        assert driver.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("aria-label") == expected["fen"]
        arrows = [a.get_attribute("data-best") for a in driver.find_elements(By.CSS_SELECTOR, "#board .best-arrow")]
        assert arrows == ([expected["moves"][0]["move"]] if expected["moves"] else []), arrows
        shaded = sorted(r.get_attribute("data-last") for r in driver.find_elements(By.CSS_SELECTOR, "#board .last-move"))
        assert shaded == (sorted(ends(last)) if last else []), (shaded, last)
        assert by_id("error").text == "", by_id("error").text
        return expected

    def open_material(fen, count=None):
        """Follows the material link once the best line from `fen` is whole. The link lies below the
        line, which grows as its moves arrive, and a click while it grows can land where the link was.
        The line is the page's: the best move of the answer shown (under `count` where the page has
        counts), then the best move of each plain answer, until no move is left or the value is a draw."""
        answer, plies = api(fen, count), 0
        while answer["moves"]:
            plies += 1
            if answer["value"] == "draw":
                break
            answer = api(answer["moves"][0]["fen"])
        wait.until(lambda d: by_id("line-step").text.endswith(f" / {plies}"))
        by_id("material-link").click()

    def enter(fen):
        field = by_id("fen")
        field.clear()
        field.send_keys(fen)
        driver.find_element(By.CSS_SELECTOR, "#fen-form button").click()

    # The first position shows something: American's opens on a win.
    driver.get(base)
    wait.until(lambda d: by_id("value").text != "")
    opening = api(by_id("fen").get_attribute("value"))
    assert opening["value"] != "draw", opening
    check_shown(opening["fen"])

    enter("W:WK1,6:BK32")
    start = check_shown("W:WK1,6:BK32")
    assert start["value"] == "win" and start["moves"], start

    driver.find_elements(By.CSS_SELECTOR, "#moves li")[0].click()  # the best move
    after = check_shown(start["moves"][0]["fen"], last=start["moves"][0]["move"])

    # The best line from there, with move numbers: Black moves first in
    # American checkers, so a line that starts with White's move is 1... .
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#line .line-move")) == after["plies"])
    numbers = [s.text for s in driver.find_elements(By.CSS_SELECTOR, "#line .move-number")]
    first = "1..." if after["fen"][0] == "W" else "1."
    assert numbers[:2] == [first, "2."], numbers
    driver.save_screenshot(os.path.join(work, "explorer-position.png"))
    by_id("line-forward").click()
    check_shown(after["moves"][0]["fen"], last=after["moves"][0]["move"])
    by_id("line-start").click()
    check_shown(after["fen"], last=start["moves"][0]["move"])

    # The arrow keys step the line; Back undoes the move played.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    check_shown(after["moves"][0]["fen"], last=after["moves"][0]["move"])
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    check_shown(after["fen"], last=start["moves"][0]["move"])
    driver.back()
    check_shown(start["fen"])
    driver.forward()
    check_shown(after["fen"], last=start["moves"][0]["move"])

    # Flipped, square 1 (White's side's far corner) is at the bottom right.
    def square_one():
        text = driver.find_element(By.CSS_SELECTOR, '#board g[data-square="1"] text')
        return float(text.get_attribute("x")), float(text.get_attribute("y"))
    x, y = square_one()
    by_id("flip").click()
    wait.until(lambda d: square_one() != (x, y))
    assert square_one()[1] > 6 and square_one()[0] > 6, square_one()

    # The legend names the counts of American checkers' rules: K alone.
    driver.find_element(By.CSS_SELECTOR, "#legend summary").click()
    counts = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#legend-counts li")]
    assert len(counts) == 1 and counts[0].startswith("K: ") and "80 plies" in counts[0], counts
    assert "ply is one turn of one player" in by_id("legend").text
    assert not by_id("count-e").find_element(By.XPATH, "..").is_displayed()
    assert not by_id("count-t").find_element(By.XPATH, "..").is_displayed()
    driver.save_screenshot(os.path.join(work, "explorer-flipped-legend.png"))
    by_id("flip").click()

    # After an error nothing of the position before stays, and the visitor
    # reads no path and no command. A FEN that cannot be read: an empty board.
    def check_error(fen_field, board_fen):
        wait.until(lambda d: by_id("error").text != "")
        assert by_id("fen").get_attribute("value") == fen_field
        assert driver.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("aria-label") == board_fen
        assert by_id("value").text == "" and by_id("moves").text == "" and by_id("line").text == ""
        assert not by_id("material-link").is_displayed()
        assert not driver.find_elements(By.CSS_SELECTOR, "#board .best-arrow, #board .last-move")
        message = by_id("error").text
        assert "/" not in message and "dtb build" not in message, message
        return message

    enter("W:WK1,K3:BK99")
    check_error("W:WK1,K3:BK99", "W:W:B")
    enter("W:WK1,6:BK32")
    check_shown("W:WK1,6:BK32")
    # A piece placed: KMMvK has no table here.
    driver.find_element(By.CSS_SELECTOR, '.piece-button[data-piece="wm"]').click()
    driver.find_element(By.CSS_SELECTOR, '#board [data-hit="7"]').click()
    message = check_error("W:WK1,6,7:BK32", "W:WK1,6,7:BK32")
    assert "KMMvK" in message, message
    driver.save_screenshot(os.path.join(work, "explorer-error.png"))
    driver.find_element(By.CSS_SELECTOR, '.piece-button[data-piece="wm"]').click()  # the editor off

    # The operator's log has the command; run as it is, the table is there.
    log.seek(0)
    logged = log.read()
    command = re.search(r"build it with (dtb build [^\n]*)\)", logged)
    assert command, logged
    argv = ["sh", "-c", command.group(1).replace("dtb build", f"'{dtb}' build", 1) + " --output quiet"]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    # ... and a variant the server has no tables of is logged with its command too.
    try:
        api("W:WK1,K3:BK32", variant="brazilian")
        raise AssertionError("brazilian answered without tables")
    except urllib.error.HTTPError as e:
        assert e.code == 404 and "/" not in json.load(e)["error"]
    log.seek(0)
    command = re.search(r"no tables of variant brazilian in .* \(build those of up to 4 pieces with (dtb build [^\n]*)\)",
                        log.read())
    assert command
    argv = ["sh", "-c", command.group(1).replace("dtb build", f"'{dtb}' build", 1) + " --output quiet"]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([dtb, "probe", "--variant", "brazilian", "--dir", tables, "W:WK4,K7,K11:BK21"], check=True,
                   stdout=subprocess.DEVNULL)

    # The chart is on a logarithmic scale, its axes labelled.
    enter("W:WK1,6:BK32")
    check_shown("W:WK1,6:BK32")
    open_material("W:WK1,6:BK32")
    wait.until(lambda d: "positions for each side to move" in by_id("material-status").text)
    def material(fen):
        """dtb's name of a FEN's material: White's kings and men, v, Black's."""
        _, white, black = fen.split(":")
        name = lambda side: "".join(sorted(("K" if p.startswith("K") else "M" for p in side[1:].split(",") if p)))
        return name(white) + "v" + name(black)
    assert by_id("material-title").text == "american " + material("W:WK1,6:BK32")
    assert len(driver.find_elements(By.CSS_SELECTOR, "svg.chart")) == 2
    labels = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "svg.chart text.axis")]
    assert "10" in labels and "100" in labels and any("distance" in t for t in labels), labels
    driver.save_screenshot(os.path.join(work, "explorer-material.png"))

    # Under the rules: the counts as fields, the value under the rules with
    # its class, each move's value and counts after it; a move played carries
    # its counts into the fields.
    def rule_text(r):
        marked = f" ({r['class']})" if r["class"] in ("cursed win", "blessed loss") else ""
        return f"draw{marked}" if r["value"] == "draw" else f"{r['value']}{marked}, rule distance {r['plies']}"
    driver.get(base + "#variant=american&fen=" + urllib.parse.quote("W:WK1,6:BK32") + "&count=K%3D70")
    expected = api("W:WK1,6:BK32", "K=70")
    wait.until(lambda d: by_id("rules-value").text.startswith("under the rules: "))
    shown = by_id("rules-value").text.split("\n")[0]
    assert shown == "under the rules: " + rule_text(expected["rules"]), (shown, expected["rules"])
    assert by_id("count-k").get_attribute("value") == "70"
    items = driver.find_elements(By.CSS_SELECTOR, "#moves li")
    for li, m in zip(items, expected["moves"]):
        assert f"[{m['rules']['counts']}]" in li.text, (li.text, m)
    driver.save_screenshot(os.path.join(work, "explorer-rules.png"))
    first = expected["moves"][0]
    items[0].click()
    k_after = first["rules"]["counts"].split(",")[0].split("=")[1]
    wait.until(lambda d: by_id("count-k").get_attribute("value") == k_after)
    wait.until(lambda d: by_id("fen").get_attribute("value") == first["fen"])
    open_material(first["fen"], first["rules"]["counts"])
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "svg.survival")) == 2)
    assert len(driver.find_elements(By.CSS_SELECTOR, "table.rule-classes")) == 2
    driver.save_screenshot(os.path.join(work, "explorer-rules-material.png"))
    print("explorer page: position, moves, best move, marks, best line with move numbers, arrow keys, Back, flip,",
          "legend, errors without stale state or paths, material page with a logarithmic chart, under the rules too;",
          "screenshots in", work)
finally:
    if driver:
        driver.quit()
    server.terminate()
    server.wait(timeout=30)
