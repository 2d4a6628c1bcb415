"""The explorer page in a real browser (headless chromium through selenium):
load it, enter a FEN, check the value and the move list against the JSON API,
click the best move, check the new position, open the material's page, and
save screenshots. The API itself is checked against the brute-force solver by
explorer_tests; this checks that the page shows what the API answers.

    browser_test.py DTB WORK
"""
import json
import os
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

dtb, work = sys.argv[1], sys.argv[2]
tables = os.path.join(work, "explorer-browser")
shutil.rmtree(tables, ignore_errors=True)
subprocess.run([dtb, "build", "--variant", "american", "--material", "KMvK", "--dir", tables, "--output", "quiet",
                "--rules"],
               check=True, stdout=subprocess.DEVNULL)

server = subprocess.Popen([dtb, "serve", "--dir", tables, "--port", "0"], stdout=subprocess.PIPE, text=True)
driver = None
try:
    banner = server.stdout.readline()  # dtb serve: http://127.0.0.1:PORT/ (...)
    base = banner.split()[2]
    assert base.startswith("http://127.0.0.1:"), banner

    def api(fen, count=None):
        query = urllib.parse.urlencode({"variant": "american", "fen": fen, **({"count": count} if count is not None else {})})
        with urllib.request.urlopen(base + "api/probe?" + query) as r:
            return json.load(r)

    options = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"]:
        options.add_argument(a)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    wait = WebDriverWait(driver, 30)
    driver.get(base)
    wait.until(lambda d: d.find_element(By.ID, "value").text != "")

    def plies_text(value, plies):
        return "draw" if value == "draw" else f"{value} in {plies} {'ply' if plies == 1 else 'plies'}"

    def check_shown(fen):
        """The page shows `fen`, its value and its moves as the API answers them."""
        expected = api(fen)
        side = "White" if expected["fen"][0] == "W" else "Black"
        wait.until(lambda d: d.find_element(By.ID, "fen").get_attribute("value") == expected["fen"])
        wait.until(lambda d: d.find_element(By.ID, "value").text ==
                   f"{side} to move: {plies_text(expected['value'], expected['plies'])}")
        shown = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#moves li")]
        mover = {"win": "loss", "loss": "win", "draw": "draw"}
        wanted = [f"{m['move']}: " + plies_text(mover[m["value"]], None if m["plies"] is None else m["plies"] + 1)
                  for m in expected["moves"]]
        assert shown == wanted, (shown, wanted)
        # The board holds the position's pieces (its label is the FEN drawn).
        assert driver.find_element(By.CSS_SELECTOR, "#board svg").get_attribute("aria-label") == expected["fen"]
        return expected

    field = driver.find_element(By.ID, "fen")
    field.clear()
    field.send_keys("W:WK1,6:BK32")
    driver.find_element(By.CSS_SELECTOR, "#fen-form button").click()
    start = check_shown("W:WK1,6:BK32")
    assert start["value"] == "win" and start["moves"], start

    driver.find_elements(By.CSS_SELECTOR, "#moves li")[0].click()  # the best move
    after = check_shown(start["moves"][0]["fen"])

    # The best line from there: a step forward is its best move, and back to its start.
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#line span")) == after["plies"])
    driver.save_screenshot(os.path.join(work, "explorer-position.png"))
    driver.find_element(By.ID, "line-forward").click()
    check_shown(after["moves"][0]["fen"])
    driver.find_element(By.ID, "line-start").click()
    check_shown(after["fen"])

    driver.find_element(By.ID, "material-link").click()
    wait.until(lambda d: "positions for each side to move" in d.find_element(By.ID, "material-status").text)
    def material(fen):
        """dtb's name of a FEN's material: White's kings and men, v, Black's."""
        _, white, black = fen.split(":")
        name = lambda side: "".join(sorted(("K" if p.startswith("K") else "M" for p in side[1:].split(",") if p)))
        return name(white) + "v" + name(black)
    assert driver.find_element(By.ID, "material-title").text == "american " + material(after["fen"])
    assert len(driver.find_elements(By.CSS_SELECTOR, "svg.chart")) == 2
    driver.save_screenshot(os.path.join(work, "explorer-material.png"))

    # Under the rules: the counts as fields, the value under the rules with
    # its class, each move's value and counts after it; a move played carries
    # its counts into the fields.
    def rule_text(r):
        marked = f" ({r['class']})" if r["class"] in ("cursed win", "blessed loss") else ""
        return f"draw{marked}" if r["value"] == "draw" else f"{r['value']}{marked}, rule distance {r['plies']}"
    driver.get(base + "#variant=american&fen=" + urllib.parse.quote("W:WK1,6:BK32") + "&count=K%3D70")
    expected = api("W:WK1,6:BK32", "K=70")
    wait.until(lambda d: d.find_element(By.ID, "rules-value").text.startswith("under the rules: "))
    shown = driver.find_element(By.ID, "rules-value").text.split("\n")[0]
    assert shown == "under the rules: " + rule_text(expected["rules"]), (shown, expected["rules"])
    assert driver.find_element(By.ID, "count-k").get_attribute("value") == "70"
    items = driver.find_elements(By.CSS_SELECTOR, "#moves li")
    for li, m in zip(items, expected["moves"]):
        assert f"[{m['rules']['counts']}]" in li.text, (li.text, m)
    driver.save_screenshot(os.path.join(work, "explorer-rules.png"))
    first = expected["moves"][0]
    items[0].click()
    k_after = first["rules"]["counts"].split(",")[0].split("=")[1]
    wait.until(lambda d: d.find_element(By.ID, "count-k").get_attribute("value") == k_after)
    wait.until(lambda d: d.find_element(By.ID, "fen").get_attribute("value") == first["fen"])
    driver.find_element(By.ID, "material-link").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "svg.survival")) == 2)
    assert len(driver.find_elements(By.CSS_SELECTOR, "table.rule-classes")) == 2
    driver.save_screenshot(os.path.join(work, "explorer-rules-material.png"))
    print("explorer page: position, moves, best move, best line and material page shown as the API answers;",
          "under the rules too;",
          "screenshots in", work)
finally:
    if driver:
        driver.quit()
    server.terminate()
    server.wait(timeout=30)
