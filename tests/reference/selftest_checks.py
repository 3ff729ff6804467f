"""The check recorder the reference self-tests share: each check prints one "ok"/"FAIL" line under
the case being run, and the failures are kept for the summary and the exit status."""


class Checks:
    def __init__(self):
        self.failed, self.count, self.case = [], 0, ""

    def __call__(self, name, ok, detail=""):
        self.count += 1
        label = f"{self.case}: {name}"
        print(f"  {'ok  ' if ok else 'FAIL'} {label}{f'  ({detail})' if detail else ''}")
        if not ok:
            self.failed.append(label)
