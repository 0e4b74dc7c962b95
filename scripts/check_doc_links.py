#!/usr/bin/python3
"""Checks the links of the HTML manual (make docs, the kiln_docs target) without the network.

    check_doc_links.py HTML_DIR
        Every relative href and src of every page under HTML_DIR must name a file inside HTML_DIR,
        and every #fragment an id (or an <a name>) of the page it points to; the pages the tree
        view's index (navtreedata.js, navtreeindex*.js) lists must exist too (not their anchors:
        Doxygen lists a namespace's functions under their header's page, which has no anchor for
        them). http, https, mailto and the other absolute links are counted, not fetched.
        Prints one line per broken link (page, link, why) and exits 1, or prints
        "doc links: OK: ..." with the counts.
    check_doc_links.py --doxygen SOURCE_DIR OUT_DIR
        Builds the manual first, as `make docs` does (doxygen with SOURCE_DIR/docs/Doxyfile, run
        in SOURCE_DIR, warnings as errors) but into OUT_DIR/html, then checks it. Every page in
        SOURCE_DIR/docs/manual must be listed in the Doxyfile's INPUT.
    check_doc_links.py --mutant HTML_DIR WORK_DIR
        Proves the check bites: copies HTML_DIR to WORK_DIR, adds a link to a missing page and one
        to a missing anchor of an existing page to its index.html, and expects the check to fail
        naming both.

Standard library only (html.parser), for /usr/bin/python3.
"""

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

# Attributes that hold a link, by tag.
LINK_ATTRIBUTES = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src",),
    "script": ("src",),
    "iframe": ("src",),
    "source": ("src",),
}
# "scheme:" at the start of a link: an absolute URL (http, https, mailto, javascript, data, ...).
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# The pages (with an optional anchor) Doxygen's tree view index lists, as JavaScript strings.
NAVTREE_LINK = re.compile(r'"([A-Za-z0-9_.-]+\.html)(?:#[A-Za-z0-9_.:-]*)?"')


class Page(HTMLParser):
    """One HTML page: its anchors (ids and <a name>) and its links, with their line numbers."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors = set()
        self.links = []  # (line, url)

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if values.get("id"):
            self.anchors.add(values["id"])
        if tag == "a" and values.get("name"):
            self.anchors.add(values["name"])
        for attribute in LINK_ATTRIBUTES.get(tag, ()):
            url = values.get(attribute)
            if url is not None:
                self.links.append((self.getpos()[0], url.strip()))

    handle_startendtag = handle_starttag


class Checker:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.pages = {}  # real path -> Page, parsed on first use
        self.broken = []  # (page, line, url, why)
        self.relative = 0
        self.fragments = 0
        self.external = set()
        self.external_count = 0

    def page(self, path):
        if path not in self.pages:
            parser = Page()
            with open(path, encoding="utf-8", errors="replace") as f:
                parser.feed(f.read())
            parser.close()
            self.pages[path] = parser
        return self.pages[path]

    def name(self, path):
        return os.path.relpath(path, self.root)

    def check_link(self, source, line, url):
        """Checks one link of `source` (a real path inside the root)."""
        if url in ("", "#"):
            return  # the page itself
        if SCHEME.match(url):
            scheme = url.split(":", 1)[0].lower()
            if scheme not in ("javascript", "data"):
                self.external.add(url)
                self.external_count += 1
            return
        parts = urlsplit(url)
        if parts.netloc:  # "//host/path"
            self.external.add(url)
            self.external_count += 1
            return
        self.relative += 1
        if parts.path:
            target = os.path.realpath(
                os.path.join(os.path.dirname(source), unquote(parts.path)))
        else:
            target = source
        where = (self.name(source), line, url)
        if os.path.commonpath([self.root, target]) != self.root:
            self.broken.append(where + ("points outside the manual",))
            return
        if os.path.isdir(target):
            target = os.path.join(target, "index.html")
        if not os.path.isfile(target):
            self.broken.append(where + ("no such file",))
            return
        if parts.fragment and target.endswith(".html"):
            self.fragments += 1
            if unquote(parts.fragment) not in self.page(target).anchors:
                self.broken.append(where + (f"no anchor '{unquote(parts.fragment)}' in "
                                            f"{self.name(target)}",))

    def run(self):
        html_files, navtree_files = [], []
        for folder, _, files in os.walk(self.root):
            for f in sorted(files):
                path = os.path.realpath(os.path.join(folder, f))
                if f.endswith(".html"):
                    html_files.append(path)
                elif re.fullmatch(r"navtree(data|index\d*)\.js", f):
                    navtree_files.append(path)
        if not html_files:
            self.broken.append((self.name(self.root), 0, "", "no HTML pages"))
        for path in sorted(html_files):
            for line, url in self.page(path).links:
                self.check_link(path, line, url)
        for path in sorted(navtree_files):
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, text in enumerate(f, 1):
                    for url in NAVTREE_LINK.findall(text):
                        self.check_link(path, number, url)
        return len(html_files)


def check(html_dir):
    checker = Checker(html_dir)
    pages = checker.run()
    for page, line, url, why in checker.broken:
        print(f"broken link: {page}:{line}: '{url}': {why}")
    if checker.broken:
        print(f"doc links: FAILED: {len(checker.broken)} broken of {checker.relative} relative "
              f"links in {pages} pages")
        return 1
    print(f"doc links: OK: {pages} pages, {checker.relative} relative links checked "
          f"({checker.fragments} with an anchor), {checker.external_count} external links "
          f"({len(checker.external)} distinct) not fetched")
    return 0


def build(source_dir, out_dir):
    """Runs doxygen as `make docs` does, into out_dir/html (removed first: no stale pages)."""
    out_dir = os.path.abspath(out_dir)
    shutil.rmtree(os.path.join(out_dir, "html"), ignore_errors=True)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(source_dir, "docs", "Doxyfile"), encoding="utf-8") as f:
        config = f.read()
    # A page docs/Doxyfile does not list would silently be left out of the manual.
    unlisted = sorted(name for name in os.listdir(os.path.join(source_dir, "docs", "manual"))
                      if name.endswith(".md") and f"docs/manual/{name}" not in config)
    if unlisted:
        print(f"doc links: FAILED: docs/Doxyfile's INPUT does not list {', '.join(unlisted)}")
        return None
    config += f'\nOUTPUT_DIRECTORY = "{out_dir}"\n'
    done = subprocess.run(["doxygen", "-"], input=config, text=True, cwd=source_dir)
    if done.returncode != 0:
        print(f"doc links: FAILED: doxygen exited with {done.returncode} (a warning is an error)",
              flush=True)
        return None
    return os.path.join(out_dir, "html")


def mutant(html_dir, work_dir):
    shutil.rmtree(work_dir, ignore_errors=True)
    shutil.copytree(html_dir, work_dir)
    index = os.path.join(work_dir, "index.html")
    with open(index, encoding="utf-8") as f:
        text = f.read()
    injected = ('<a href="no_such_page.html">a missing page</a>'
                '<a href="index.html#no_such_anchor">a missing anchor</a></body>')
    if "</body>" not in text:
        print("mutant: FAILED: index.html has no </body> to inject links before")
        return 1
    with open(index, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", injected, 1))
    output = subprocess.run([sys.executable, os.path.abspath(__file__), work_dir],
                            capture_output=True, text=True)
    print(output.stdout, end="")
    if output.returncode == 0:
        print("mutant: FAILED: the checker accepted a broken link and a broken anchor")
        return 1
    missing = [what for what in ("'no_such_page.html': no such file",
                                 "'index.html#no_such_anchor': no anchor 'no_such_anchor'")
               if what not in output.stdout]
    if missing:
        print(f"mutant: FAILED: not reported: {missing}")
        return 1
    print("mutant: OK: the missing page and the missing anchor were both reported")
    return 0


def main(argv):
    if len(argv) == 2 and not argv[1].startswith("-"):
        return check(argv[1])
    if len(argv) == 4 and argv[1] == "--doxygen":
        html_dir = build(argv[2], argv[3])
        return 1 if html_dir is None else check(html_dir)
    if len(argv) == 4 and argv[1] == "--mutant":
        return mutant(argv[2], argv[3])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
