"""
Issue 50's measure (/work/measure.py) counted by family rather than by file: which files outside a
family's own folders import ten or more families. A projection file belongs to the family whose
read side (projections/<family>/index.ts) lists it, a route file to the family whose entry of the
route list (services/api/routes/index.ts) mounts it, a domain folder to the family below
(DOMAIN_FAMILY), a module of response schemas (services/api/schemas/<family>.ts) to its family; a
family's read side counts as that family. test/unit/wide-imports.test.ts fails when a file other
than the lists imports ten or more.

    python3 scripts/measure-families.py [root]
"""
import json, os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(root)
IMPORT = re.compile(r"""(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]""")

# A domain folder's family (shared with test/unit/wide-imports.test.ts, which holds the same count).
DOMAIN_FAMILY = json.load(open('scripts/domain-families.json'))


def imports(path):
    out = []
    for m in IMPORT.finditer(open(path).read()):
        p = m.group(1)
        if p.startswith('.'):
            out.append(os.path.normpath(os.path.join(os.path.dirname(path), p)).replace('.js', '.ts'))
    return out


# Projection files, by the read side that lists them.
projection_family = {}
for family in os.listdir('projections'):
    index = os.path.join('projections', family, 'index.ts')
    if os.path.isfile(index):
        projection_family[index] = family
        for target in imports(index):
            if target.startswith('projections/') and target.count('/') == 1 and target != 'projections/read-side.ts':
                projection_family[target] = family

# Route files, by the entry of the route list that mounts them.
route_list = 'services/api/routes/index.ts'
route_family = {}
text = open(route_list).read()
builder_file = {}
for m in re.finditer(r"import \{([^}]*)\} from '\./([^']+)\.js';", text):
    for name in m.group(1).split(','):
        builder_file[name.strip()] = f'services/api/routes/{m.group(2)}.ts'
entries = re.split(r"\n\s*\{\s*\n?\s*family: '", text.split('export const ROUTES')[1])
for entry in entries[1:]:
    family = entry.split("'", 1)[0]
    for builder in re.findall(r'=> (\w+)\(', entry):
        if builder in builder_file:
            route_family[builder_file[builder]] = family


def family_of(target):
    m = re.match(r'packages/(?:domain|families)/([^/]+)/', target)
    if m:
        return DOMAIN_FAMILY.get(m.group(1), m.group(1))
    m = re.match(r'services/api/schemas/([^/]+)\.ts$', target)
    if m:
        return m.group(1)
    return projection_family.get(target) or route_family.get(target)


files = []
for d in ['packages', 'services', 'projections', 'infra', 'bin']:
    for dp, _, fs in os.walk(d):
        files += [os.path.normpath(os.path.join(dp, f)) for f in fs if f.endswith('.ts')]

LISTS = {'packages/families/index.ts', 'projections/index.ts', route_list}
wide = []
for f in files:
    families = {family_of(t) for t in imports(f)} - {None, family_of(f)}
    if len(families) >= 10:
        wide.append((len(families), f))
print('files outside a family importing >=10 families:', len(wide), '(lists:', sum(1 for _, f in wide if f in LISTS), ')')
for n, f in sorted(wide, reverse=True):
    print('  ', n, f, '(a list)' if f in LISTS else '')
unmapped = sorted(f for f in files if f.startswith('services/api/routes/') and f not in route_family and f not in (route_list, 'services/api/routes/shared.ts'))
if unmapped:
    print('route files no entry mounts:', ' '.join(unmapped))
