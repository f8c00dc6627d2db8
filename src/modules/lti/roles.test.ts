import { describe, expect, it } from 'vitest';
import { launchAudience } from './roles.js';

const M = 'http://purl.imsglobal.org/vocab/lis/v2/membership';
const INST = 'http://purl.imsglobal.org/vocab/lis/v2/institution/person';
const SYS = 'http://purl.imsglobal.org/vocab/lis/v2/system/person';

describe('LTI roles to who a launch is for', () => {
  it('makes instructors, their sub-roles (a TA alone), content developers, course and institution administrators staff', () => {
    expect(launchAudience([`${M}#Instructor`])).toBe('staff');
    expect(launchAudience(['Instructor'])).toBe('staff');
    expect(launchAudience([`${M}/Instructor#TeachingAssistant`])).toBe('staff');
    expect(launchAudience([`${M}/Instructor#Grader`])).toBe('staff');
    expect(launchAudience([`${M}#ContentDeveloper`])).toBe('staff');
    expect(launchAudience(['ContentDeveloper'])).toBe('staff');
    expect(launchAudience([`${M}#Administrator`])).toBe('staff');
    expect(launchAudience([`${M}#Manager`])).toBe('staff');
    expect(launchAudience([`${INST}#Administrator`])).toBe('staff');
    expect(launchAudience([`${SYS}#Administrator`])).toBe('staff');
    expect(launchAudience([`${SYS}#SysAdmin`])).toBe('staff');
    expect(launchAudience(['urn:lti:role:ims/lis/Instructor'])).toBe('staff');
    expect(launchAudience(['urn:lti:role:ims/lis/Instructor/TeachingAssistant'])).toBe('staff');
    // Staff wins over learner (an instructor enrolled as a student too).
    expect(launchAudience([`${M}#Learner`, `${M}#Instructor`])).toBe('staff');
  });

  it('makes learners learners, in every form', () => {
    expect(launchAudience([`${M}#Learner`])).toBe('learner');
    expect(launchAudience(['Learner'])).toBe('learner');
    expect(launchAudience([`${M}/Learner#NonCreditLearner`])).toBe('learner');
    expect(launchAudience([`${M}#Learner`, `${INST}#Student`])).toBe('learner');
    // An institution's faculty who is a learner in this course takes the test.
    expect(launchAudience([`${M}#Learner`, `${INST}#Faculty`, `${INST}#Instructor`])).toBe('learner');
    // A learner who also observes someone takes their own test.
    expect(launchAudience([`${M}#Learner`, `${M}#Mentor`])).toBe('learner');
  });

  it('makes mentors (Canvas observers) and Manager#Observer observers', () => {
    expect(launchAudience([`${M}#Mentor`])).toBe('observer');
    expect(launchAudience(['Mentor'])).toBe('observer');
    expect(launchAudience([`${M}/Mentor#Advisor`])).toBe('observer');
    expect(launchAudience([`${M}#Mentor`, `${INST}#Student`])).toBe('observer');
    expect(launchAudience([`${M}/Manager#Observer`])).toBe('observer');
    expect(launchAudience(['urn:lti:role:ims/lis/Mentor'])).toBe('observer');
  });

  it('treats a launch with no known role as a learner (a course link is for its students)', () => {
    expect(launchAudience([])).toBe('learner');
    expect(launchAudience(undefined)).toBe('learner');
    expect(launchAudience([`${INST}#Student`])).toBe('learner');
    expect(launchAudience(['http://purl.imsglobal.org/vocab/lti/system/person#TestUser'])).toBe('learner');
    expect(launchAudience([42, null, 'not a role!'])).toBe('learner');
  });
});
