using System.Xml.Linq;
using PerfLab.Common;

namespace PerfLab.Sut.Tests;

/// <summary>
/// The package versions Directory.Packages.props pins for a target framework, read from the file itself so that the
/// tests follow the pins. Its framework conditions are of two forms: "== 'netX'" (that framework) and "!= ... And !=
/// ..." (every framework it does not name).
/// </summary>
public static class PinnedVersions
{
    public static string Of(string framework, string package)
    {
        var props = XDocument.Load(Path.Combine(PerfLabPaths.RepoRoot, "Directory.Packages.props"));
        var quoted = $"'{framework}'";
        var pins = props.Root!.Elements("ItemGroup")
            .Where(group => (string?)group.Attribute("Condition") is not { } condition
                || (condition.Contains("==", StringComparison.Ordinal) ? condition.Contains(quoted, StringComparison.Ordinal) : !condition.Contains(quoted, StringComparison.Ordinal)))
            .SelectMany(group => group.Elements("PackageVersion"))
            .Where(pin => (string?)pin.Attribute("Include") == package)
            .Select(pin => (string)pin.Attribute("Version")!)
            .ToList();
        return Assert.Single(pins);
    }
}
