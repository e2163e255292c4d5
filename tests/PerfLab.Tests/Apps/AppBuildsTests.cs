using PerfLab.Apps;
using PerfLab.Common;

namespace PerfLab.Tests.Apps;

/// <summary>What keys a project's cached build, and which project file a folder names.</summary>
public sealed class AppBuildsTests : IDisposable
{
    private readonly string _folder = TestCaches.NewFolder();

    public void Dispose() => TestCaches.Delete(_folder);

    [Fact]
    public void ContentHash_ChangesWithASourceFile_NotWithBuildOutput()
    {
        File.WriteAllText(Path.Combine(_folder, "App.csproj"), "<Project />");
        File.WriteAllText(Path.Combine(_folder, "Program.cs"), "one");
        var first = AppBuilds.ContentHash(_folder);

        Directory.CreateDirectory(Path.Combine(_folder, "bin", "Release"));
        File.WriteAllText(Path.Combine(_folder, "bin", "Release", "App.dll"), "built");
        Directory.CreateDirectory(Path.Combine(_folder, "obj"));
        File.WriteAllText(Path.Combine(_folder, "obj", "project.assets.json"), "{}");
        var afterBuild = AppBuilds.ContentHash(_folder);
        File.WriteAllText(Path.Combine(_folder, "Program.cs"), "two");
        var afterEdit = AppBuilds.ContentHash(_folder);

        Assert.Equal(first, afterBuild);
        Assert.NotEqual(first, afterEdit);
    }

    [Fact]
    public void ProjectFile_FolderWithTwoProjects_AsksWhichOne()
    {
        File.WriteAllText(Path.Combine(_folder, "A.csproj"), "<Project />");
        File.WriteAllText(Path.Combine(_folder, "B.csproj"), "<Project />");

        var ex = Assert.Throws<PerfLabException>(() => AppBuilds.ProjectFile(_folder));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("holds 2 project files (A.csproj, B.csproj): name one of them", ex.Message, StringComparison.Ordinal);
        Assert.Equal(Path.Combine(_folder, "B.csproj"), AppBuilds.ProjectFile(Path.Combine(_folder, "B.csproj")));
    }
}
