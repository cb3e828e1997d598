// What a failed file-system call means, in words a user can act on, from its errno code.

/**
 * The reason of a Node file-system error, for a message that also names the path.
 *
 * @example fsReason(Object.assign(new Error('…'), { code: 'ENOSPC' }))  // 'no space left on the device'
 */
export function fsReason(e: unknown): string {
  switch ((e as NodeJS.ErrnoException | undefined)?.code) {
    case 'EACCES': case 'EPERM': return 'permission denied'
    case 'ENOSPC': return 'no space left on the device'
    case 'EDQUOT': return 'the disk quota is exhausted'
    case 'EROFS': return 'the file system is read-only'
    case 'ENOENT': return 'it does not exist'
    case 'ENOTDIR': case 'EEXIST': return 'a file stands where a folder should be'
    case 'EISDIR': return 'a folder stands where a file should be'
    case 'EMFILE': case 'ENFILE': return 'too many open files'
    default: return e instanceof Error ? e.message : String(e)
  }
}
