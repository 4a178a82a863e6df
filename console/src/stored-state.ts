import { useEffect, useState } from 'react';

/**
 * State kept in this tab's sessionStorage under `key`: it outlives the page's re-mount on a mode
 * switch and a reload, and stays in the tab (a draft, not a setting).
 */
export function useStoredState<T>(key: string, initial: T): [T, (next: T | ((previous: T) => T)) => void] {
  const [value, setValue] = useState<T>(() => {
    try {
      const stored = sessionStorage.getItem(key);
      return stored === null ? initial : (JSON.parse(stored) as T);
    } catch {
      return initial;
    }
  });
  useEffect(() => {
    sessionStorage.setItem(key, JSON.stringify(value));
  }, [key, value]);
  return [value, setValue];
}
