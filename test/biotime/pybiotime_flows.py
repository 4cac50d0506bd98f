"""BioTime flows of pybiotime (PyPI, pinned in requirements.txt), run against BioGate's /biotime by pybiotime.test.ts.

Usage: python pybiotime_flows.py STEP BASE_URL USERNAME PASSWORD [ARGS...]; prints one JSON object.
Steps: read (Token and JWT: terminals, transactions with filters and paging), create DEPT AREA,
update ID, delete ID. Nothing here is BioGate's: only the library's public calls.
"""
import json
import sys
from datetime import datetime

from pybiotime import BioTimeClient, JWTAuth, TokenAuth


def read(base, user, password):
    out = {}
    for name, auth in (("token", TokenAuth(user, password)), ("jwt", JWTAuth(user, password))):
        with BioTimeClient(base, auth=auth, timezone="UTC", page_size=3) as bt:
            terminals = [t.sn for t in bt.terminals.list()]
            desk = bt.terminals.get_by_sn("PY-DESK")
            punches = list(bt.transactions.list(emp_code="4001", start=datetime(2026, 3, 1, 9, 2), end=datetime(2026, 3, 1, 9, 9)))
            every = list(bt.transactions.list())
            newest = bt.transactions.list(order_by="-punch_time").first()
            out[name] = {
                "terminals": terminals,
                "desk_alias": desk.alias if desk else None,
                "window": [p.punch_time.strftime("%Y-%m-%d %H:%M:%S") for p in punches],
                "window_states": [str(p.punch_state) for p in punches],
                "all_ids": [p.id for p in every],
                "count": bt.transactions.list().count(),
                "newest": newest.punch_time.strftime("%Y-%m-%d %H:%M:%S") if newest else None,
            }
    return out


def client(base, user, password):
    return BioTimeClient(base, auth=TokenAuth(user, password), timezone="UTC")


def create(base, user, password, dept, area):
    with client(base, user, password) as bt:
        e = bt.employees.create("5001", department_id=int(dept), area_ids=[int(area)], first_name="Py", last_name="Thon")
        found = bt.employees.get_by_code("5001")
        return {"id": e.id, "emp_code": e.emp_code, "first_name": e.first_name, "found": found.id if found else None}


def update(base, user, password, emp_id):
    with client(base, user, password) as bt:
        e = bt.employees.update(int(emp_id), first_name="Pia")
        return {"id": e.id, "first_name": e.first_name, "last_name": e.last_name}


def delete(base, user, password, emp_id):
    with client(base, user, password) as bt:
        bt.employees.delete(int(emp_id))
        return {"gone": bt.employees.get_by_code("5001") is None}


if __name__ == "__main__":
    step, base, user, password, *rest = sys.argv[1:]
    result = {"read": read, "create": create, "update": update, "delete": delete}[step](base, user, password, *rest)
    print(json.dumps(result))
