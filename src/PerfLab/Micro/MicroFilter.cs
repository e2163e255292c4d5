using System.Text.RegularExpressions;

namespace PerfLab.Micro;

/// <summary>Chooses benchmarks by the user's filters, BenchmarkDotNet style: a glob (<c>*</c>, <c>?</c>) matched
/// case-insensitively against <c>Namespace.Class.Method</c> or <c>Class.Method</c>; a filter without wildcards matches
/// any name that contains it.</summary>
public static class MicroFilter
{
    public static IReadOnlyList<string> Select(IReadOnlyList<string> available, IReadOnlyList<string> filters)
    {
        if (filters.Count == 0)
        {
            return available;
        }
        var patterns = filters.Select(ToRegex).ToList();
        return available.Where(name => patterns.Any(p => p.IsMatch(name) || p.IsMatch(ShortName(name)))).ToList();
    }

    /// <summary><c>PerfLab.Micro.IndexOfAnyBenchmarks.IndexOfAny_String</c> becomes
    /// <c>IndexOfAnyBenchmarks.IndexOfAny_String</c>.</summary>
    public static string ShortName(string fullName)
    {
        var method = fullName.LastIndexOf('.');
        var type = method > 0 ? fullName.LastIndexOf('.', method - 1) : -1;
        return type >= 0 ? fullName[(type + 1)..] : fullName;
    }

    public static string NothingMatches(IReadOnlyList<string> filters, IReadOnlyList<string> available)
    {
        var names = string.Join("\n", available.Select(n => "  " + ShortName(n)));
        return $"no benchmark matches {string.Join(" or ", filters.Select(f => $"'{f}'"))}. The benchmarks are:\n{names}";
    }

    private static Regex ToRegex(string filter)
    {
        var glob = filter.Contains('*') || filter.Contains('?') ? filter : $"*{filter}*";
        var pattern = "^" + Regex.Escape(glob).Replace(@"\*", ".*").Replace(@"\?", ".") + "$";
        return new Regex(pattern, RegexOptions.IgnoreCase | RegexOptions.CultureInvariant);
    }
}
