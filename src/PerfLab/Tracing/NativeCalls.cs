using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace PerfLab.Tracing;

/// <summary>
/// The native function behind a P/Invoke, read from the app's own assembly: the sampler's stacks are managed only, and
/// the JIT inlines a P/Invoke's stub into its caller, so the app's frame that made the call is the leaf and nothing
/// names the function. The assembly does: a P/Invoke is a method with an ImplMap row (its DllImport: module name and
/// entry point), and the app's method calls it. A LibraryImport's generated wrapper calls its own inner DllImport, so
/// the same reading finds it one call deeper. Read from metadata only (System.Reflection.Metadata): nothing is loaded.
/// </summary>
public static class NativeCalls
{
    private const byte Call = 0x28;
    private const byte MethodDefTable = 0x06;
    // A LibraryImport's wrapper is one call away from its DllImport; the app's own helper around either, one more.
    private const int MaxDepth = 3;

    /// <summary>
    /// "libc!usleep" for the app's frame <paramref name="frame"/> ("Culprits.NativeSleep" as the trace names it),
    /// "libc!usleep or libc!nanosleep" when the method calls several, null when none is found or the file cannot be read.
    /// </summary>
    public static string? Find(string assemblyPath, string frame)
    {
        try
        {
            return File.Exists(assemblyPath) ? Read(assemblyPath, FrameNames.MethodPart(frame)) : null;
        }
        catch (Exception ex) when (ex is BadImageFormatException or IOException or InvalidOperationException)
        {
            return null; // not an assembly this can read: the finding keeps "native code via P/Invoke"
        }
    }

    private static string? Read(string assemblyPath, string method)
    {
        using var pe = new PEReader(File.OpenRead(assemblyPath));
        var md = pe.GetMetadataReader();
        var named = md.MethodDefinitions.Where(h => Name(md, h) == method).ToList();
        var found = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var handle in named)
        {
            Collect(pe, md, handle, MaxDepth, found, []);
        }
        return found.Count == 0 ? null : string.Join(" or ", found);
    }

    // The method itself when it is a P/Invoke, else the P/Invokes it calls; through the app's own methods (a
    // LibraryImport's wrapper, a helper) only when it calls none itself.
    private static void Collect(PEReader pe, MetadataReader md, MethodDefinitionHandle handle, int depth, SortedSet<string> found,
        HashSet<MethodDefinitionHandle> seen)
    {
        if (!seen.Add(handle))
        {
            return;
        }
        if (Import(md, handle) is { } native)
        {
            found.Add(native);
            return;
        }
        var method = md.GetMethodDefinition(handle);
        if (depth == 0 || method.RelativeVirtualAddress == 0)
        {
            return;
        }
        var callees = Callees(md, pe.GetMethodBody(method.RelativeVirtualAddress).GetILBytes() ?? []).Distinct().ToList();
        var direct = callees.Select(c => Import(md, c)).OfType<string>().ToList();
        if (direct.Count > 0)
        {
            found.UnionWith(direct);
            return;
        }
        foreach (var callee in callees)
        {
            Collect(pe, md, callee, depth - 1, found, seen);
        }
    }

    // "libc!usleep" for a P/Invoke (its ImplMap row: the module it names and the entry point), else null.
    private static string? Import(MetadataReader md, MethodDefinitionHandle handle)
    {
        var method = md.GetMethodDefinition(handle);
        if ((method.Attributes & MethodAttributes.PinvokeImpl) == 0)
        {
            return null;
        }
        var import = method.GetImport();
        var module = import.Module.IsNil ? "?" : md.GetString(md.GetModuleReference(import.Module).Name);
        return $"{module}!{md.GetString(import.Name)}";
    }

    // Methods of this assembly the IL calls: a call opcode followed by a MethodDef token.
    private static IEnumerable<MethodDefinitionHandle> Callees(MetadataReader md, byte[] il)
    {
        for (var i = 0; i + 5 <= il.Length; i++)
        {
            if (il[i] != Call || il[i + 4] != MethodDefTable)
            {
                continue;
            }
            var row = BitConverter.ToInt32(il, i + 1) & 0xFFFFFF;
            if (row > 0 && row <= md.GetTableRowCount(TableIndex.MethodDef))
            {
                yield return MetadataTokens.MethodDefinitionHandle(row);
            }
        }
    }

    // The method as a trace's frame names it once made readable ("Culprits.NativeSleep", "Program.<Main>$ lambda b__0_5").
    private static string Name(MetadataReader md, MethodDefinitionHandle handle)
    {
        var method = md.GetMethodDefinition(handle);
        return FrameNames.Readable(HandlerSource.TypeName(md, method.GetDeclaringType()) + "." + md.GetString(method.Name));
    }
}
