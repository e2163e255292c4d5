using PerfLab.Common;

namespace PerfLab.Tests;

public sealed class PerfLabProcessTests
{
    [Fact]
    public void StartInfo_NoCacheGiven_EachProcessGetsAFreshFolderOfItsOwn()
    {
        var first = PerfLabProcess.StartInfo(null, "--version");
        var second = PerfLabProcess.StartInfo(null, "--version");

        var firstCache = first.Environment[PerfLabPaths.CacheDirVariable]!;
        var secondCache = second.Environment[PerfLabPaths.CacheDirVariable]!;
        Assert.NotEqual(firstCache, secondCache);
        Assert.True(Directory.Exists(firstCache));
        Assert.Empty(Directory.EnumerateFileSystemEntries(firstCache));
        Assert.NotEqual(Path.GetFullPath(PerfLabPaths.CacheRoot), Path.GetFullPath(firstCache));
    }

    [Fact]
    public void StartInfo_CacheGiven_UsesItSoTestsCanShareOneAcrossCalls()
    {
        using var folder = new TempFolder();

        var info = PerfLabProcess.StartInfo(new Dictionary<string, string> { [PerfLabPaths.CacheDirVariable] = folder.Path }, "--version");

        Assert.Equal(folder.Path, info.Environment[PerfLabPaths.CacheDirVariable]);
    }

    [Fact]
    public void StartInfo_DevelopersSettings_NoneReachTheChild()
    {
        var info = PerfLabProcess.StartInfo(new Dictionary<string, string> { ["PERFLAB_PG_BINDIR"] = "/given" }, "--version");

        // Whatever this test host inherited, only what the test gave and the cache folder remain.
        var perflab = info.Environment.Keys.Where(k => k.StartsWith("PERFLAB_", StringComparison.Ordinal)).Order(StringComparer.Ordinal);
        Assert.Equal([PerfLabPaths.CacheDirVariable, "PERFLAB_PG_BINDIR"], perflab);
        Assert.False(info.Environment.ContainsKey("XDG_CACHE_HOME"));
    }
}
