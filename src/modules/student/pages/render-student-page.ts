import type { StudentPage } from '../load-student-page.js';
import { completionPage } from './completion-page.js';
import { introPage } from './intro-page.js';
import { assignmentExpiredPage, withdrawnPage } from './message-pages.js';
import { testPage } from './test-page.js';

/** The page for each state of the student's assignment, with its HTTP status. */
export function renderStudentPage(page: StudentPage): { status: number; html: string } {
  switch (page.kind) {
    case 'intro':
      return { status: 200, html: introPage(page) };
    case 'test':
      return { status: 200, html: testPage(page) };
    case 'done':
      return { status: 200, html: completionPage(page) };
    case 'expired':
      return { status: 410, html: assignmentExpiredPage(page) };
    case 'withdrawn':
      return { status: 410, html: withdrawnPage(page) };
  }
}
