/**
 * Why a folder could not be made, in words, from the error's code: `EEXIST` alone tells an operator nothing of
 * what to change. Undefined for a code with no words here (the code itself is then shown).
 */
export function folderProblem(code: string | undefined): string | undefined {
  switch (code) {
    case 'EEXIST':
      return 'a file stands at that path, not a folder';
    case 'ENOTDIR':
      return 'a part of that path is a file, not a folder';
    case 'EACCES':
    case 'EPERM':
      return 'this user may not create a folder there';
    case 'EROFS':
      return 'that filesystem is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    default:
      return undefined;
  }
}
