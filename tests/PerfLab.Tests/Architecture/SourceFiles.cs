using PerfLab.Common;

namespace PerfLab.Tests.Architecture;

/// <summary>The C# sources of src/ that the source rules read: every project's, not its build output.</summary>
internal static class SourceFiles
{
    /// <summary>Each file's path relative to src/ (forward slashes) and its text, in ordinal order of the paths.</summary>
    public static IEnumerable<(string Relative, string Text)> InSrc()
    {
        var src = Path.Combine(PerfLabPaths.RepoRoot, "src");
        return Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(src, path).Replace('\\', '/'))
            .Where(relative => !relative.Split('/').Any(part => part is "bin" or "obj" or "node_modules"))
            .Order(StringComparer.Ordinal)
            .Select(relative => (relative, File.ReadAllText(Path.Combine(src, relative))));
    }
}
