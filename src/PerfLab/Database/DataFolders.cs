namespace PerfLab.Database;

/// <summary>Creating and cleaning a cluster's data folder so that a failed initialisation leaves nothing behind.</summary>
internal static class DataFolders
{
    public static string? TopmostMissingFolder(string path)
    {
        string? topmost = null;
        for (var dir = path; !string.IsNullOrEmpty(dir) && !Directory.Exists(dir) && !File.Exists(dir);
             dir = Path.GetDirectoryName(dir))
        {
            topmost = dir;
        }
        return topmost;
    }

    public static void DeleteQuietly(string folder, bool keepFolder)
    {
        try
        {
            if (!Directory.Exists(folder))
            {
                return;
            }
            if (!keepFolder)
            {
                Directory.Delete(folder, recursive: true);
                return;
            }
            foreach (var entry in Directory.EnumerateFileSystemEntries(folder))
            {
                if (Directory.Exists(entry))
                {
                    Directory.Delete(entry, recursive: true);
                }
                else
                {
                    File.Delete(entry);
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Best effort: the error being reported matters more than the cleanup.
        }
    }
}
