namespace PerfLab.Tests.Architecture;

/// <summary>One use of a type of ours by a type of ours, as read from IL: the example shown when the edge breaks a rule.</summary>
internal sealed record TypeDependency(string FromType, string FromNamespace, string ToType, string ToNamespace);

/// <summary>
/// The layering of perflab: commands -> experiments -> Apps -> peers -> Common; Reports -> Results -> Common;
/// experiments may use Results and peers directly; peers never use each other; no cycles between folders (PerfLab.X namespaces).
/// Apps (the app under test, of which the built-in SUT is one) sits between: it starts the SUT, reads the
/// process through Counters' helpers, and knows nothing of experiments.
/// Hosts (roles placed on other machines over ssh) sits beside Apps: it drives Load and the app on a host, merges what
/// generators send, and knows nothing of experiments; experiments and commands use it.
/// History (runs kept over time, their change points) reads Results; Reports render it; commands use both.
/// Experiments is layers of its own, each a folder: Running (the run pipeline, the capacity search one of its
/// measurements) -> Analysis -> Definitions; nothing below looks up (docs/architecture.md draws it).
/// </summary>
internal static class DependencyRule
{
    private const string Root = "PerfLab";
    private const string Commands = "commands";
    private const string Experiments = "Experiments";
    private const string Common = "Common";
    private const string Results = "Results";
    private const string Reports = "Reports";
    private const string Apps = "Apps";
    private const string Hosts = "Hosts";
    private const string History = "History";

    private static readonly HashSet<string> Peers = ["Load", "Counters", "SutProcesses", "Database", "Network", "Micro", "Tracing"];

    /// <summary>Experiments' own layers, top first: each may use those after it.</summary>
    private static readonly string[] ExperimentLayers =
        [Experiments + ".Running", Experiments + ".Analysis", Experiments + ".Definitions"];

    /// <summary>
    /// The folder a namespace lives in: PerfLab.X for PerfLab.X.*, "PerfLab" for the root namespace; within
    /// Experiments, its sub-folder (Experiments.Running), since those are layers of their own.
    /// </summary>
    public static string Folder(string ns)
    {
        var parts = ns.Split('.');
        return parts.Length switch
        {
            > 2 when parts[1] == Experiments => $"{Experiments}.{parts[2]}",
            > 1 => parts[1],
            _ => Root,
        };
    }

    /// <summary>The layer a folder belongs to; null for a folder the rule does not place yet.</summary>
    public static string? Group(string folder) => folder switch
    {
        Root or "Cli" => Commands,
        Common or Results or Reports or Apps or Hosts or History => folder,
        _ when ExperimentLayers.Contains(folder) => folder,
        _ when Peers.Contains(folder) => folder,
        _ => null,
    };

    public static bool Allowed(string fromGroup, string toGroup)
    {
        if (fromGroup == toGroup || fromGroup == Commands)
        {
            return true;
        }
        if (Array.IndexOf(ExperimentLayers, fromGroup) is var from and >= 0)
        {
            var to = Array.IndexOf(ExperimentLayers, toGroup);
            return to > from || (to < 0 && (Peers.Contains(toGroup) || toGroup is Results or Common or Apps or Hosts));
        }
        return fromGroup switch
        {
            Apps => Peers.Contains(toGroup) || toGroup is Common,
            Hosts => Peers.Contains(toGroup) || toGroup is Common or Apps,
            Reports => toGroup is Results or Common or History,
            History => toGroup is Results or Common,
            Results => toGroup is Common,
            Common => false,
            _ => Peers.Contains(fromGroup) && toGroup is Common,
        };
    }

    /// <summary>Every broken rule, one line per offending folder edge with one example type pair; empty when the graph obeys.</summary>
    public static IReadOnlyList<string> Violations(IEnumerable<TypeDependency> dependencies)
    {
        // One example per folder edge: the first pair in a stable order, so the message does not change run to run.
        var edges = dependencies
            .Where(d => Folder(d.FromNamespace) != Folder(d.ToNamespace))
            .GroupBy(d => (From: Folder(d.FromNamespace), To: Folder(d.ToNamespace)))
            .ToDictionary(g => g.Key, g => g.OrderBy(d => d.FromType, StringComparer.Ordinal).ThenBy(d => d.ToType, StringComparer.Ordinal).First());
        var violations = new List<string>();
        foreach (var folder in edges.Keys.SelectMany(e => new[] { e.From, e.To }).Distinct().Where(f => Group(f) is null).Order(StringComparer.Ordinal))
        {
            violations.Add($"{Root}.{folder} belongs to no layer: place it in DependencyRule");
        }
        foreach (var ((from, to), example) in edges.OrderBy(e => e.Key.From, StringComparer.Ordinal).ThenBy(e => e.Key.To, StringComparer.Ordinal))
        {
            if (Group(from) is { } fromGroup && Group(to) is { } toGroup && !Allowed(fromGroup, toGroup))
            {
                violations.Add($"{from} -> {to} is not allowed, e.g. {Describe(example)}");
            }
        }
        foreach (var cycle in Cycles(edges.Keys))
        {
            var steps = cycle.Zip(cycle.Skip(1).Append(cycle[0]), (a, b) => Describe(edges[(a, b)]));
            violations.Add($"cycle {string.Join(" -> ", cycle.Append(cycle[0]))}: {string.Join("; ", steps)}");
        }
        return violations;
    }

    private static string Describe(TypeDependency d) => $"{d.FromType} uses {d.ToType}";

    /// <summary>One cycle per strongly connected component of more than one folder, starting at its first folder by name.</summary>
    internal static IReadOnlyList<IReadOnlyList<string>> Cycles(IEnumerable<(string From, string To)> edges)
    {
        var next = edges.GroupBy(e => e.From).ToDictionary(g => g.Key, g => g.Select(e => e.To).Order(StringComparer.Ordinal).ToList());
        var cycles = new List<IReadOnlyList<string>>();
        foreach (var component in StronglyConnected(next).Where(c => c.Count > 1))
        {
            var start = component.Min(StringComparer.Ordinal)!;
            cycles.Add(PathBack(start, component, next));
        }
        return cycles.OrderBy(c => c[0], StringComparer.Ordinal).ToList();
    }

    // Breadth-first from start through the component until an edge leads back to start: the shortest cycle through it.
    private static IReadOnlyList<string> PathBack(string start, HashSet<string> component, Dictionary<string, List<string>> next)
    {
        var parent = new Dictionary<string, string>();
        var queue = new Queue<string>([start]);
        while (queue.Count > 0)
        {
            var node = queue.Dequeue();
            foreach (var to in next.GetValueOrDefault(node) ?? [])
            {
                if (to == start)
                {
                    var path = new List<string> { node };
                    while (parent.TryGetValue(path[^1], out var p))
                    {
                        path.Add(p);
                    }
                    path.Reverse();
                    return path;
                }
                if (component.Contains(to) && to != start && parent.TryAdd(to, node))
                {
                    queue.Enqueue(to);
                }
            }
        }
        throw new InvalidOperationException($"{start} is in a component but on no cycle");
    }

    // Tarjan's algorithm; the graph has a dozen folders, so recursion depth is no concern.
    private static List<HashSet<string>> StronglyConnected(Dictionary<string, List<string>> next)
    {
        var index = new Dictionary<string, int>();
        var low = new Dictionary<string, int>();
        var stack = new Stack<string>();
        var components = new List<HashSet<string>>();
        var nodes = next.Keys.Concat(next.Values.SelectMany(v => v)).Distinct().Order(StringComparer.Ordinal);
        foreach (var node in nodes.Where(n => !index.ContainsKey(n)))
        {
            Visit(node);
        }
        return components;

        void Visit(string node)
        {
            index[node] = low[node] = index.Count;
            stack.Push(node);
            foreach (var to in next.GetValueOrDefault(node) ?? [])
            {
                if (!index.ContainsKey(to))
                {
                    Visit(to);
                    low[node] = Math.Min(low[node], low[to]);
                }
                else if (stack.Contains(to))
                {
                    low[node] = Math.Min(low[node], index[to]);
                }
            }
            if (low[node] == index[node])
            {
                var component = new HashSet<string>();
                string member;
                do
                {
                    member = stack.Pop();
                    component.Add(member);
                } while (member != node);
                components.Add(component);
            }
        }
    }
}
